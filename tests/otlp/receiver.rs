//! A plain HTTP/1.1 OTLP receiver on 127.0.0.1 for the export tests (here and in `otlp_live`):
//! it keeps what each request carried and answers as told, including not at all.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message as _;

/// What a receiver got: path, headers (lower-case names), body, per request.
type Got = Mutex<Vec<(String, Vec<(String, String)>, Vec<u8>)>>;

/// What the receiver answers.
#[derive(Clone, Copy)]
pub enum Answer {
    Ok,
    Status(u16),
    /// Read the request, never answer.
    Hang,
}

/// A plain HTTP/1.1 OTLP receiver on 127.0.0.1: keeps each request's path, headers and body.
pub struct Receiver {
    pub url: String,
    pub got: Arc<Got>,
    stop: Arc<AtomicBool>,
}

impl Receiver {
    pub fn start(answer: Answer) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        listener.set_nonblocking(true).expect("nonblocking");
        let got = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (g, s) = (got.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let (g, s) = (g.clone(), s.clone());
                        std::thread::spawn(move || serve(conn, answer, &g, &s));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Receiver { url, got, stop }
    }

    /// Every request body decoded as OTLP protobuf.
    pub fn requests(&self) -> Vec<ExportTraceServiceRequest> {
        self.got
            .lock()
            .expect("lock")
            .iter()
            .map(|(path, headers, body)| {
                assert_eq!(path, "/v1/traces");
                let ct = headers.iter().find(|(k, _)| k == "content-type");
                assert_eq!(ct.map(|(_, v)| v.as_str()), Some("application/x-protobuf"));
                ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP protobuf")
            })
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(conn: TcpStream, answer: Answer, got: &Got, stop: &AtomicBool) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_secs(20)));
    let mut writer = conn.try_clone().expect("clone");
    let mut reader = BufReader::new(conn);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        got.lock().expect("lock").push((path, headers, body));
        let status = match answer {
            Answer::Ok => 200,
            Answer::Status(s) => s,
            Answer::Hang => {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
        };
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: text/plain\r\ncontent-length: 7\r\n\r\nnope {}",
            if status == 200 { "ok" } else { ":(" }
        );
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}
