//! Exact counts made by the native build and carried to the browser with the trace: the
//! exported page has them in its config, `sightline serve` sends them before the events they
//! count. The web viewer links no tokenizer, so it shows these, the desktop's own figures.
//!
//! What a count depends on is the encoding (chosen from the request's model) and the entry's
//! text: so the table maps each model named to its encoding, and each (encoding, text) to its
//! count, the text by a 64-bit SHA-256 prefix (a page carries the counts, not the texts again).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::{Bpe, ENCODINGS, entry_text};
use crate::analysis::llm::read_request;
use crate::trace::{Channel, Event, Lane};
use crate::wire::api::ApiShape;

/// Counts another [`Bpe`] made, for the requests of some events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// Each model named (`""`: none) and its encoding.
    #[serde(default)]
    encodings: BTreeMap<String, String>,
    /// [`key`] of (encoding, text) and the text's tokens.
    #[serde(default)]
    counts: BTreeMap<String, usize>,
}

/// The table that knows nothing (the browser's own counter).
#[cfg(not(feature = "native"))]
pub(super) static NONE: Carried = Carried {
    encodings: BTreeMap::new(),
    counts: BTreeMap::new(),
};

impl Carried {
    /// `bpe`'s counts of every tool entry of every OpenAI-shaped LLM request among `events`
    /// (Anthropic's figure is an estimate any build makes).
    pub fn of(events: &[Event], bpe: &dyn Bpe) -> Carried {
        let mut out = Carried::default();
        for (i, e) in events.iter().enumerate() {
            if e.channel != Channel::LlmHttp || e.from != Lane::Host || e.to != Lane::Llm {
                continue;
            }
            let x = read_request(i, e);
            if !matches!(x.shape, Some(ApiShape::Openai | ApiShape::OpenaiChat)) {
                continue;
            }
            let model = x.model.as_deref();
            let Some(encoding) = bpe.encoding(model) else {
                continue;
            };
            out.encodings
                .insert(model.unwrap_or_default().to_string(), encoding.to_string());
            for entry in x.tool_entries.iter() {
                let text = entry_text(entry);
                if let Some(n) = bpe.count(encoding, &text) {
                    out.counts.insert(key(encoding, &text), n);
                }
            }
        }
        out
    }

    /// Takes in more counts (a served trace's, as its requests arrive).
    pub fn extend(&mut self, more: Carried) {
        self.encodings.extend(more.encodings);
        self.counts.extend(more.counts);
    }

    pub fn is_empty(&self) -> bool {
        self.encodings.is_empty() && self.counts.is_empty()
    }
}

impl Bpe for Carried {
    fn encoding(&self, model: Option<&str>) -> Option<&'static str> {
        let name = self.encodings.get(model.unwrap_or_default())?;
        ENCODINGS.into_iter().find(|e| e == name)
    }

    fn count(&self, encoding: &str, text: &str) -> Option<usize> {
        self.counts.get(&key(encoding, text)).copied()
    }
}

/// 16 hex digits of SHA-256 over the encoding, a NUL and the text.
fn key(encoding: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(encoding.as_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
