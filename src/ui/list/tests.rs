use super::*;
use crate::trace::{Channel, Event, now};
use crate::ui::store::Source;
use crate::ui::store::search::{ByteSets, OWN_KEPT, contains_folded};

#[test]
fn folded_contains_is_lowercase_contains() {
    let hays = [
        "",
        "z",
        "Summarize",
        "xsummarizx",
        "{\"name\":\"SUMMARIZE\"}",
        "sum marize",
        "summari",
        "aaZ",
        "zaa",
        "Ünïcode summarize",
        "q_Q",
        "[]",
        "\u{212a}elvin",
        "\u{130}stanbul",
        "x\u{130}",
    ];
    let needles = [
        "",
        "z",
        "summarize",
        "s",
        "ze",
        "\"name\"",
        "q_q",
        "]",
        "ünï",
        "aaz",
        "kelvin",
        "k",
        "i",
        "xi",
    ];
    for hay in hays {
        for needle in needles {
            assert_eq!(
                contains_folded(hay, needle),
                hay.to_lowercase().contains(needle),
                "{hay:?} {needle:?}"
            );
        }
    }
}

/// [`contains_folded`] searches ASCII needles byte by byte, and lowers the text only when it
/// holds a character that lowercases to ASCII: there are two.
#[test]
fn only_two_characters_lowercase_to_ascii() {
    let to_ascii: Vec<char> = (0x80..=0x10_ffff)
        .filter_map(char::from_u32)
        .filter(|c| c.to_lowercase().any(|l| l.is_ascii()))
        .collect();
    assert_eq!(to_ascii, ['\u{130}', '\u{212a}']);
}

#[test]
fn a_text_filter_over_a_big_trace_finds_labels_and_payloads_in_order() {
    let t0 = now();
    let events: Vec<Event> = (0..PARALLEL_FILTER_FROM as u64 + 10)
        .map(|seq| {
            let raw = if seq % 1000 == 0 {
                format!(r#"{{"jsonrpc":"2.0","id":{seq},"method":"tools/call","params":{{"name":"needle"}}}}"#)
            } else {
                format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"n":{seq}}}}}"#)
            };
            Event::with_bytes(
                seq,
                t0,
                Lane::Host,
                Lane::server("s"),
                Channel::Stdio,
                raw.into_bytes(),
            )
        })
        .collect();
    let store = TraceStore::new("t".into(), Source::Memory, events);
    let mut list = MessageList::default();
    // "call needle" is in the labels (`tools/call needle`), not in the payloads.
    list.filter.text = "CALL NEEDLE".into();
    let hits = list.matches(&store).map(<[usize]>::to_vec);
    let expected: Vec<usize> = (0..store.len()).step_by(1000).collect();
    assert_eq!(hits, Some(expected));
}

/// The primitives tour and a few rows more: `isError` results and an HTTP status.
fn mixed_events() -> Vec<Event> {
    let tour = include_str!("../../../tests/fixtures/narration/primitives-tour-2026-07-28.jsonl");
    let mut events = crate::trace::load_from_reader(tour.as_bytes())
        .expect("fixture")
        .events;
    let t0 = events[0].time;
    let s = Lane::server("tour");
    let mut add = |from: Lane, to: Lane, channel: Channel, raw: &str, status: Option<u16>| {
        let seq = events.len() as u64;
        let mut e = Event::with_bytes(seq, t0, from, to, channel, raw.as_bytes().to_vec());
        if let Some(code) = status {
            e.set_http(Some(crate::trace::HttpInfo {
                status: Some(code),
                ..Default::default()
            }));
        }
        events.push(e);
    };
    for (id, error) in [(900, "true"), (901, "false")] {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo"}}}}"#
        );
        add(Lane::Host, s.clone(), Channel::Stdio, &call, None);
        let result =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"isError":{error}}}}}"#);
        add(s.clone(), Lane::Host, Channel::Stdio, &result, None);
    }
    add(
        Lane::Host,
        s.clone(),
        Channel::Http,
        r#"{"jsonrpc":"2.0","id":902,"method":"ping"}"#,
        None,
    );
    add(
        s.clone(),
        Lane::Host,
        Channel::Http,
        r#"{"jsonrpc":"2.0","id":902,"result":{}}"#,
        Some(404),
    );
    events
}

/// The events whose payload or row label holds `needle` (in lower case), each read whole.
fn plain_scan(store: &TraceStore, needle: &str) -> Vec<usize> {
    (0..store.len())
        .filter(|&i| {
            store.events[i].text().to_lowercase().contains(needle)
                || store.row_label(i).to_lowercase().contains(needle)
        })
        .collect()
}

/// Typing, narrowing and the shared labels find what a plain scan of every payload and
/// every label finds, `isError` results and HTTP statuses included.
#[test]
fn typed_filters_match_a_plain_scan() {
    let events = mixed_events();
    let store = TraceStore::new("t".into(), Source::Memory, events);
    let plain = |needle: &str| plain_scan(&store, needle);
    for word in [
        "result tools/call echo iserror",
        "404 not",
        "SAMPLING",
        "input_required",
        "ü",
    ] {
        let mut list = MessageList::default();
        for end in (1..=word.len()).filter(|&n| word.is_char_boundary(n)) {
            list.filter.text = word[..end].to_string();
            let hits = list.matches(&store).map(<[usize]>::to_vec);
            assert_eq!(
                hits,
                Some(plain(&word[..end].to_lowercase())),
                "{:?}",
                &word[..end]
            );
        }
        // Backspaces (results typed before), then another word from a narrower one.
        for end in (1..word.len()).rev().filter(|&n| word.is_char_boundary(n)) {
            list.filter.text = word[..end].to_string();
            let hits = list.matches(&store).map(<[usize]>::to_vec);
            assert_eq!(
                hits,
                Some(plain(&word[..end].to_lowercase())),
                "back to {:?}",
                &word[..end]
            );
        }
        let first = word.chars().next().unwrap_or('x');
        list.filter.text = format!("{first}o");
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        assert_eq!(hits, Some(plain(&list.filter.text.to_lowercase())));
    }
    let mut list = MessageList::default();
    list.filter.text = "iserror".into();
    let hits = list
        .matches(&store)
        .map(<[usize]>::to_vec)
        .unwrap_or_default();
    assert!(
        hits.iter()
            .any(|&i| store.row_label(i).ends_with("isError")),
        "{hits:?}"
    );
}

/// One `notifications/message` from a server for each text of `data`, as its `data`.
fn messages(data: &[&str]) -> Vec<Event> {
    let t0 = now();
    data.iter()
        .enumerate()
        .map(|(seq, data)| {
            let raw = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{data}"}}}}"#
            );
            let s = Lane::server("s");
            Event::with_bytes(seq as u64, t0, s, Lane::Host, Channel::Stdio, raw.into_bytes())
        })
        .collect()
}

/// A store of `events` with its byte sets made (waited for, up to a minute).
fn with_byte_sets(events: Vec<Event>) -> TraceStore {
    let mut store = TraceStore::new("t".into(), Source::Memory, events);
    let lang = store.lang;
    store.byte_sets = ByteSets::start(&store.events, &store.report, lang);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while store.byte_sets.get().is_none() {
        assert!(std::time::Instant::now() < deadline, "no byte sets");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    store
}

/// With the byte sets made, every needle finds what the rows say, one character or more.
#[test]
fn byte_sets_agree_with_reading_the_rows() {
    let store = with_byte_sets(mixed_events());
    let plain = |needle: &str| plain_scan(&store, needle);
    let mut needles: Vec<String> = (0x20u8..0x7f).map(|b| (b as char).to_string()).collect();
    needles.extend(
        [
            "iserror",
            "404",
            "tools/call",
            "sampling for",
            "zq",
            "é",
            "ü",
            "\\u{",
            "(empty)",
        ]
        .map(str::to_string),
    );
    let mut some = 0;
    for needle in needles {
        let mut list = MessageList::default();
        list.filter.text = needle.clone();
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        let expected = plain(&needle.to_lowercase());
        some += usize::from(!expected.is_empty());
        assert_eq!(hits, Some(expected), "{needle:?}");
    }
    assert!(some > 40, "{some} needles found something");
}

/// Only what matched a filter the new one contains can match it: a backspace to a filter never
/// typed, a replaced character or another lane must look at every event again, not at the
/// previous result.
#[test]
fn edits_that_do_not_extend_the_text_do_not_narrow() {
    let t0 = now();
    let s = Lane::server("s");
    let events: Vec<Event> = ["abx", "acx", "abc", "xyz"]
        .iter()
        .enumerate()
        .map(|(seq, word)| {
            let raw = format!(r#"{{"jsonrpc":"2.0","method":"notifications/{word}"}}"#);
            let (from, to) = if seq == 3 {
                (Lane::User, Lane::Host)
            } else {
                (Lane::Host, s.clone())
            };
            Event::with_bytes(seq as u64, t0, from, to, Channel::Stdio, raw.into_bytes())
        })
        .collect();
    let store = TraceStore::new("t".into(), Source::Memory, events);
    let mut list = MessageList::default();
    let expect = |list: &mut MessageList, text: &str, hits: &[usize]| {
        list.filter.text = text.into();
        let found = list.matches(&store).map(<[usize]>::to_vec);
        assert_eq!(
            found,
            Some(hits.to_vec()),
            "{text:?} after the filters before"
        );
    };
    expect(&mut list, "ABC", &[2]);
    // A backspace to a filter never typed: more than "abc" matched.
    expect(&mut list, "ab", &[0, 2]);
    // A replaced character: not within "ab"'s result.
    expect(&mut list, "ac", &[1]);
    // Typing on narrows (and finds the same).
    expect(&mut list, "acx", &[1]);
    // Another lane: "x" within the server's events, then the text extended without the lane.
    list.filter.lane = Some(s.clone());
    expect(&mut list, "x", &[0, 1]);
    list.filter.lane = None;
    expect(&mut list, "xy", &[3]);
    // And the other way: a lane with no such events, then all lanes.
    list.filter.lane = Some(Lane::Llm);
    expect(&mut list, "xyz", &[]);
    list.filter.lane = None;
    expect(&mut list, "xyz", &[3]);
}

/// Typing on searches each payload from where the shorter text was found (less how far into
/// the new text it begins, when typed in front): what a plain scan finds, whether the first
/// place of the shorter text is the longer one's or not.
#[test]
fn narrowing_resumes_where_the_shorter_text_was_found() {
    let data = [
        "summarize",
        "sum, summary, SUMMARIZE",
        "s u m",
        "\u{212a}elvin, kelvin",
        "\u{212a}ELVIN",
        "ize, rize, ARIZE",
    ];
    let events = messages(&data);
    let store = TraceStore::new("t".into(), Source::Memory, events);
    let plain = |needle: &str| plain_scan(&store, needle);
    let typed = [
        "s",
        "su",
        "sum",
        "summ",
        "summa",
        "summar",
        "summari",
        "summariz",
        "summarize",
    ];
    let in_front = ["ize", "rize", "arize", "marize", "mmarize"];
    let kelvin = ["k", "ke", "kel", "kelvin"];
    for words in [&typed[..], &in_front, &kelvin] {
        let mut list = MessageList::default();
        for word in words {
            list.filter.text = word.to_string();
            let hits = list.matches(&store).map(<[usize]>::to_vec);
            assert_eq!(hits, Some(plain(word)), "{word:?} after {words:?}");
        }
    }
}

/// A big trace with its byte sets made: each keystroke's candidates are cut in chunks that two
/// threads take in turn, and typing on resumes each payload where the shorter text was found.
/// Every keystroke finds, in order, what a plain scan finds.
#[test]
fn chunked_typing_over_a_big_trace_matches_a_plain_scan() {
    let t0 = now();
    let s = Lane::server("s");
    let events: Vec<Event> = (0..PARALLEL_FILTER_FROM as u64 + 4_000)
        .map(|seq| {
            let pad = "x".repeat((seq % 97) as usize);
            let (from, to, channel, raw) = match seq % 7 {
                0 => (s.clone(), Lane::Host, Channel::Stdio, format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{pad} summarize {seq}"}}}}"#
                )),
                1 => (s.clone(), Lane::Host, Channel::Stdio, format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"sum {pad} summ"}}}}"#
                )),
                2 => (Lane::Host, s.clone(), Channel::Stdio, format!(
                    r#"{{"jsonrpc":"2.0","id":{seq},"method":"tools/call","params":{{"name":"summarize"}}}}"#
                )),
                3 => (Lane::User, Lane::Host, Channel::Note, format!("please SUMMARIZE {pad}")),
                4 => (s.clone(), Lane::Host, Channel::Stderr, format!("s u m m a r i z e {seq}")),
                5 => (s.clone(), Lane::Host, Channel::Stdio, format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"summarizx {pad} Summarize"}}}}"#
                )),
                _ => (Lane::Host, s.clone(), Channel::Stdio, format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"n":{seq}}}}}"#
                )),
            };
            Event::with_bytes(seq, t0, from, to, channel, raw.into_bytes())
        })
        .collect();
    let store = with_byte_sets(events);
    let word = "summarize";
    let mut list = MessageList::default();
    for end in 1..=word.len() {
        list.filter.text = word[..end].to_string();
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        let expected = plain_scan(&store, &word[..end]);
        assert!(expected.len() > 1000, "{:?}", &word[..end]);
        // Not printed whole: thousands of rows.
        let hits = hits.unwrap_or_default();
        let first_wrong = hits.iter().zip(&expected).position(|(a, b)| a != b);
        assert!(
            hits == expected,
            "{:?}: {} hits, {} expected, first differing at {first_wrong:?}",
            &word[..end],
            hits.len(),
            expected.len()
        );
        // Each place read is where the text first begins in that payload.
        let cached = list.cache.last().expect("a result");
        for (&i, &at) in cached.hits.iter().zip(&cached.found) {
            let text = store.events[i].text().to_ascii_lowercase();
            let first = text.find(&word[..end]).map(|p| p as Found);
            assert!(
                at == NOT_READ || Some(at) == first,
                "{:?}: event {i} found at {at}, first at {first:?}",
                &word[..end]
            );
        }
        assert!(cached.found.is_empty() || cached.found.len() == cached.hits.len());
    }
}

/// The byte sets keep the first few thousand distinct labels of rows without a shared one
/// (notes, processes, stderr); a filter looks at each of those once, and makes the others'
/// labels. Both find what a plain scan finds: labels kept, repeated, and not kept.
#[test]
fn own_labels_kept_or_not_match_a_plain_scan() {
    let t0 = now();
    let s = Lane::server("s");
    let n = OWN_KEPT as u64 + 3_000;
    let events: Vec<Event> = (0..n)
        .map(|seq| {
            let (from, to, channel, raw) = match seq % 3 {
                // Distinct notes: the first thousands are kept, the rest are not.
                0 => (
                    Lane::User,
                    Lane::Host,
                    Channel::Note,
                    format!("note {seq} abc"),
                ),
                // One stderr line, repeated: kept once.
                1 => (
                    s.clone(),
                    Lane::Host,
                    Channel::Stderr,
                    "abd again".to_string(),
                ),
                _ => (
                    s.clone(),
                    Lane::Host,
                    Channel::Stderr,
                    format!("line {seq} xyz"),
                ),
            };
            Event::with_bytes(seq, t0, from, to, channel, raw.into_bytes())
        })
        .collect();
    let store = with_byte_sets(events);
    for needle in [
        "ab", "abc", "abd", "r: a", "err", "note 1", "7 abc", "e 9", "z",
    ] {
        let mut list = MessageList::default();
        list.filter.text = needle.to_string();
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        let expected = plain_scan(&store, needle);
        assert!(!expected.is_empty(), "{needle:?}");
        let hits = hits.unwrap_or_default();
        assert!(
            hits == expected,
            "{needle:?}: {} hits, {} expected",
            hits.len(),
            expected.len()
        );
    }
}

/// With the byte sets made, a payload is searched for characters that lowercase to ASCII (the
/// Kelvin sign, `İ`) only when its set says it holds bytes beyond ASCII: those still match.
#[test]
fn byte_sets_keep_characters_that_lowercase_to_ascii() {
    let data = ["\u{212a}ELVIN", "kelvin", "plain", "x\u{130}y", "\u{e9}k"];
    let events = messages(&data);
    let store = with_byte_sets(events);
    for (needle, expected) in [
        ("kelvin", vec![0, 1]),
        ("elvin", vec![0, 1]),
        ("xi", vec![3]),
    ] {
        let mut list = MessageList::default();
        list.filter.text = needle.to_string();
        let hits = list.matches(&store).map(<[usize]>::to_vec);
        assert_eq!(hits, Some(plain_scan(&store, needle)), "{needle:?}");
        assert_eq!(hits, Some(expected), "{needle:?}");
    }
}

/// The filter box reads the language `summary --filter` reads: typed terms with the text
/// search beside them; text that names no field is looked for as before, and a query with a
/// mistake says where.
#[test]
fn the_filter_box_reads_the_display_filter_language() {
    let text = include_str!("../../../tests/fixtures/narration/weather.jsonl");
    let events = crate::trace::load_from_reader(text.as_bytes())
        .expect("fixture")
        .events;
    let store = TraceStore::new("t".into(), Source::Memory, events);
    let seqs = |list: &mut MessageList, text: &str| -> Option<Vec<u64>> {
        list.filter.text = text.into();
        list.matches(&store)
            .map(|hits| hits.iter().map(|&i| store.events[i].seq).collect())
    };
    let mut list = MessageList::default();
    assert_eq!(seqs(&mut list, "method:tools/call dir:s2c"), Some(vec![11]));
    // Typing on: a typed query narrows by its terms, not by its text.
    assert_eq!(seqs(&mut list, "method:tools/call"), Some(vec![10, 11]));
    assert_eq!(
        seqs(&mut list, "method:tools/call seoul"),
        Some(vec![10, 11])
    );
    assert_eq!(seqs(&mut list, "method:tools/cal"), Some(vec![]));
    assert_eq!(seqs(&mut list, "kind:note or seq:2"), Some(vec![0, 2, 14]));
    assert_eq!(
        seqs(&mut list, "seoul"),
        seqs(&mut MessageList::default(), "SEOUL")
    );
    assert!(Query::of("tools/call").typed.is_none());
    assert!(Query::of("http://x").error.is_none());
    let error = Query::of("kind:bogus").error.expect("a mistake");
    assert_eq!(error.column, 6);
}

/// The byte sets read the rows' own labels in the store's language: in Portuguese, a filter
/// for `iniciado` finds the process note that says it, and `set_lang` makes the sets again.
#[test]
fn byte_sets_read_labels_in_the_stores_language() {
    let text = include_str!("../../../tests/fixtures/narration/weather.jsonl");
    let events = crate::trace::load_from_reader(text.as_bytes())
        .expect("fixture")
        .events;
    let mut store = with_byte_sets(events);
    let find = |store: &TraceStore, needle: &str| {
        let mut list = MessageList::default();
        list.filter.text = needle.into();
        list.matches(store).map(<[usize]>::to_vec)
    };
    assert_eq!(store.byte_sets.lang(), Some(crate::i18n::Language::En));
    let spawned = find(&store, "spawned").expect("sets made");
    assert!(!spawned.is_empty());
    store.set_lang(crate::i18n::Language::Pt);
    assert_eq!(store.byte_sets.lang(), Some(crate::i18n::Language::Pt));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while store.byte_sets.get().is_none() {
        assert!(std::time::Instant::now() < deadline, "no byte sets");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(find(&store, "iniciado"), Some(spawned.clone()));
    assert_eq!(
        find(&store, "iniciado"),
        Some(plain_scan(&store, "iniciado"))
    );
}
