//! The exact counts themselves: OpenAI's encodings from the vocabularies `tiktoken-rs` bundles
//! (offline). Native build only: the vocabularies are 5 MB (2.5 MB compressed) that every web
//! page would otherwise carry; the pages carry the counts made here instead ([`super::Carried`]).

use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

use super::Bpe;

/// `tiktoken-rs`: `cl100k_base` for the older models it maps to it (`gpt-4`,
/// `gpt-3.5-turbo`), `o200k_base` for every other model (GPT-4o, GPT-4.1, GPT-5, o-series,
/// and requests that name none).
pub struct Tiktoken;

impl Bpe for Tiktoken {
    fn encoding(&self, model: Option<&str>) -> Option<&'static str> {
        Some(match model.and_then(get_tokenizer) {
            Some(Tokenizer::Cl100kBase) => "cl100k_base",
            _ => "o200k_base",
        })
    }

    fn count(&self, encoding: &str, text: &str) -> Option<usize> {
        let bpe = match encoding {
            "o200k_base" => tiktoken_rs::o200k_base_singleton(),
            "cl100k_base" => tiktoken_rs::cl100k_base_singleton(),
            _ => return None,
        };
        Some(bpe.count_ordinary(text))
    }
}

/// `o200k_base` tokens of `text` (special-token text counted as ordinary text).
pub fn o200k_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().count_ordinary(text)
}
