//! Who and how: the participants of a trace ([`Lane`]) and the ways bytes travel between
//! them ([`Channel`]), each stored as a short string.
//!
//! Kept apart from [`super::event`] because both are read a million times on load: lane names
//! are interned so the events of one lane share one copy.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::event::map_str;
use super::shared::{Shared, intern};

/// A participant in the diagram. Serialized as `"user"`, `"host"`, `"llm"` or `"server:<name>"`.
///
/// Names are [`Shared`]: a trace has a handful of lanes and a million events, so the
/// events of one lane read from a file point at one copy of its name (see [`Lane::from`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    User,
    Host,
    Llm,
    Server(Shared),
    /// A lane name this version does not know; kept verbatim.
    Other(Shared),
}

impl Lane {
    pub fn server(name: impl AsRef<str>) -> Self {
        Lane::Server(intern(name.as_ref()))
    }

    pub fn is_server(&self) -> bool {
        matches!(self, Lane::Server(_))
    }

    /// The server's name for a server lane.
    pub fn server_name(&self) -> Option<&str> {
        match self {
            Lane::Server(name) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lane::User => f.write_str("user"),
            Lane::Host => f.write_str("host"),
            Lane::Llm => f.write_str("llm"),
            Lane::Server(name) => write!(f, "server:{name}"),
            Lane::Other(s) => f.write_str(s),
        }
    }
}

impl From<&str> for Lane {
    /// Parses a lane; server and unknown names are shared with the lanes of the same name made
    /// before on this thread ([`intern`]).
    fn from(s: &str) -> Self {
        match s {
            "user" => Lane::User,
            "host" => Lane::Host,
            "llm" => Lane::Llm,
            _ => match s.strip_prefix("server:") {
                Some(name) => Lane::Server(intern(name)),
                None => Lane::Other(intern(s)),
            },
        }
    }
}

impl Serialize for Lane {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Lane {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        map_str(d, |s| Lane::from(s))
    }
}

/// How the bytes travelled.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Channel {
    /// One line of a stdio MCP connection.
    Stdio,
    /// One line a server wrote to its stderr.
    Stderr,
    /// An MCP message carried over HTTP.
    Http,
    /// A request to or a response from an LLM API.
    LlmHttp,
    /// A process was spawned or exited (see [`ProcessInfo`]).
    Process,
    /// Text written by Sightline itself (a user prompt, an annotation).
    Note,
    /// A channel name this version does not know; kept verbatim.
    Other(Shared),
}

impl Channel {
    /// The channel a trace names `name` ([`Self::as_str`] backwards; any other name is kept).
    pub fn named(name: &str) -> Channel {
        match name {
            "stdio" => Channel::Stdio,
            "stderr" => Channel::Stderr,
            "http" => Channel::Http,
            "llm-http" => Channel::LlmHttp,
            "process" => Channel::Process,
            "note" => Channel::Note,
            other => Channel::Other(other.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Channel::Stdio => "stdio",
            Channel::Stderr => "stderr",
            Channel::Http => "http",
            Channel::LlmHttp => "llm-http",
            Channel::Process => "process",
            Channel::Note => "note",
            Channel::Other(s) => s,
        }
    }

    /// Channels whose payload is one JSON-RPC message.
    pub fn carries_jsonrpc(&self) -> bool {
        matches!(self, Channel::Stdio | Channel::Http)
    }
}

impl Serialize for Channel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Channel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        map_str(d, Channel::named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_round_trip_as_strings() {
        for s in [
            "user",
            "host",
            "llm",
            "server:weather",
            "server:a:b",
            "robot",
        ] {
            let lane = Lane::from(s);
            assert_eq!(lane.to_string(), s);
        }
        assert_eq!(Lane::from("server:weather").server_name(), Some("weather"));
        assert_eq!(Lane::from("robot"), Lane::Other("robot".into()));
    }

    #[test]
    fn lane_names_are_shared() {
        let (Lane::Server(a), Lane::Server(b)) = (Lane::from("server:w"), Lane::server("w")) else {
            panic!("server lanes");
        };
        assert!(Shared::ptr_eq(&a, &b));
    }
}
