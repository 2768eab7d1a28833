//! Token cost of the tools as the model actually got them: each entry of each recorded LLM
//! request's `tools` parameter, the request's total, and the provider's tool-use overhead.
//!
//! # What is counted
//!
//! Each tool entry exactly as the request carried it ([`crate::analysis::LlmExchange::tool_entries`]),
//! serialized as compact JSON in its recorded key order: for Anthropic `{name, description,
//! input_schema}`, for OpenAI Responses `{type, name, description, parameters}`, for Chat
//! Completions `{type, function: {...}}`. [`RequestTokens::total`] is the sum over the entries;
//! the provider's overhead is reported beside it, not added in.
//!
//! # OpenAI shapes: a real tokenizer (`exact: true`)
//!
//! Counted through [`Bpe`]: natively [`Tiktoken`]; the web viewer links no tokenizer and
//! shows the counts the native build made and the page carries ([`Carried`]).
//!
//! OpenAI publishes its tokenizers. The count is `o200k_base` (the encoding of the GPT-4o,
//! GPT-4.1, GPT-5 and o-series models), from the vocabulary bundled with `tiktoken-rs`, offline.
//! When the request names an older model that `tiktoken-rs` maps to `cl100k_base` (`gpt-4`,
//! `gpt-3.5-turbo`), that encoding is used instead ([`RequestTokens::tokenizer`] says which).
//! The count is exact for the JSON text of the entry. OpenAI does not feed that JSON to the model
//! verbatim: it renders the functions into its own (unpublished) system-message syntax, so the
//! billed figure differs by a few tokens per tool, which is what the overhead estimates.
//! A Chat Completions request sent to another server (Ollama, vLLM, a gateway) is counted the
//! same way; its model's own tokenizer will differ.
//!
//! # Anthropic: an estimate (`exact: false`)
//!
//! Anthropic publishes no tokenizer for its current models (token counts come only from its
//! `count_tokens` API, which would send the definitions off the machine). The estimate is
//! **characters / 3.5, rounded up**: Anthropic's own documented rule of thumb ("a token
//! approximately represents 3.5 English characters"). An `o200k_base` count times a factor was
//! rejected because no factor between OpenAI's encoding and Claude's is documented by Anthropic;
//! 3.5 characters per token is the only figure that comes from the provider. JSON with short
//! keys and punctuation is denser than prose, so treat the figure as a rough upper-middle guess,
//! good for comparing tools with each other, not for billing.
//!
//! # Gemini: an estimate (`exact: false`)
//!
//! Google publishes no offline tokenizer for Gemini models either (its `countTokens` API would
//! send the definitions off the machine). The estimate is **characters / 4, rounded up**, the
//! figure Google's Gemini API documentation gives ("a token is equivalent to about 4
//! characters"). The entry counted is one function declaration as sent (`{name, description,
//! parametersJsonSchema}`), not the `{functionDeclarations: [...]}` object around them.
//!
//! # Tool-use system prompt overhead
//!
//! - **Anthropic** documents it: when `tools` is sent, a tool-use system prompt is added whose
//!   size depends on the model, **286 to 675 tokens** for current models with `tool_choice:
//!   auto` (the table in Anthropic's tool-use documentation as read on 2026-10-08, quoted by the
//!   seed article). Reported as `(286, 675)`.
//! - **OpenAI** does not document one: the figure is **unknown**, and what is reported is an
//!   estimate from OpenAI's cookbook recipe for counting tool tokens (GPT-4o family): 12 tokens
//!   once per request with tools, plus 7 per function for its wrapper in the internal rendering.
//!   Reported as `(12, 12 + 7 × tools)`.
//! - **Gemini** documents none and no estimate is published: reported as `(0, 0)`, unknown.
//! - A request without tools has no overhead: `(0, 0)`.

use serde::Serialize;
use serde_json::Value;

use super::Report;
use crate::wire::api::ApiShape;

mod carried;
#[cfg(feature = "native")]
mod tiktoken;

pub use carried::Carried;
#[cfg(feature = "native")]
pub use tiktoken::{Tiktoken, o200k_tokens};

/// Anthropic's documented characters per token.
pub const ANTHROPIC_CHARS_PER_TOKEN: f64 = 3.5;
/// Google's documented characters per token for Gemini models.
pub const GEMINI_CHARS_PER_TOKEN: f64 = 4.0;
/// Anthropic's documented tool-use system prompt, in tokens, across current models.
pub const ANTHROPIC_OVERHEAD: (usize, usize) = (286, 675);
/// OpenAI cookbook estimate: tokens added once per request with tools.
pub const OPENAI_OVERHEAD_PER_REQUEST: usize = 12;
/// OpenAI cookbook estimate: tokens added per function.
pub const OPENAI_OVERHEAD_PER_TOOL: usize = 7;
/// The encodings an exact count can be in.
pub const ENCODINGS: [&str; 2] = ["o200k_base", "cl100k_base"];

/// Where exact counts (OpenAI's published encodings) come from: the tokenizer itself in the
/// native build ([`Tiktoken`]), or, in the browser, the counts it made and the page carries
/// ([`Carried`]): the vocabularies are 5 MB the web viewer does not link.
pub trait Bpe {
    /// The encoding a request for `model` is counted in (one of [`ENCODINGS`]).
    fn encoding(&self, model: Option<&str>) -> Option<&'static str>;
    /// The tokens of `text` in `encoding` (special-token text counted as ordinary text).
    fn count(&self, encoding: &str, text: &str) -> Option<usize>;
}

/// The build's own counter: the tokenizer in the native build; in the browser one that knows
/// nothing (what the page carries is passed in by `ui::platform` instead).
pub fn own() -> &'static dyn Bpe {
    #[cfg(feature = "native")]
    {
        &Tiktoken
    }
    #[cfg(not(feature = "native"))]
    {
        &carried::NONE
    }
}

/// The tools of one LLM request, in tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestTokens {
    /// Index of the LLM request event in the trace.
    pub request: usize,
    pub shape: ApiShape,
    /// The request's `model`, when it names one.
    pub model: Option<String>,
    /// Each tool as sent: its name as the model saw it, its tokens.
    pub tools: Vec<(String, usize)>,
    /// Sum over `tools` (the overhead is not included).
    pub total: usize,
    /// The provider's tool-use system prompt overhead, low and high (see the module docs).
    pub overhead: (usize, usize),
    /// `true` when the counts come from the provider's own tokenizer, `false` for an estimate.
    pub exact: bool,
    /// How the counts were made: `o200k_base`, `cl100k_base`, `chars/3.5` (Anthropic) or
    /// `chars/4` (Gemini).
    pub tokenizer: &'static str,
}

/// Token counts for every LLM request of a trace whose API shape is known (and, for OpenAI's
/// shapes, whose counts `bpe` knows), in trace order.
pub fn tool_tokens(report: &Report, bpe: &dyn Bpe) -> Vec<RequestTokens> {
    report
        .llm
        .iter()
        .filter_map(|x| exchange_tokens(x, bpe))
        .collect()
}

/// Token counts for the tools of one LLM request (What the model sees shows them), when its
/// API shape is known and, for OpenAI's shapes, `bpe` knows every entry's count.
pub fn exchange_tokens(x: &crate::analysis::LlmExchange, bpe: &dyn Bpe) -> Option<RequestTokens> {
    let shape = x.shape?;
    let model = x.model.clone();
    let encoding = match shape {
        ApiShape::Anthropic | ApiShape::Gemini => None,
        ApiShape::Openai | ApiShape::OpenaiChat => Some(bpe.encoding(model.as_deref())?),
    };
    let mut tools = Vec::with_capacity(x.tool_entries.len());
    for (i, entry) in x.tool_entries.iter().enumerate() {
        // A remote MCP server the API connects to: the model sees that server's tools, which
        // the request does not hold.
        if crate::wire::remote::is_declaration(entry) {
            continue;
        }
        let name = entry_name(shape, entry)
            .or_else(|| held_names(x, i))
            .or_else(|| entry.get("type")?.as_str().map(str::to_string))
            .unwrap_or_default();
        let text = entry_text(entry);
        let n = match encoding {
            Some(encoding) => bpe.count(encoding, &text)?,
            None if shape == ApiShape::Gemini => gemini_estimate(&text),
            None => anthropic_estimate(&text),
        };
        tools.push((name, n));
    }
    let total = tools.iter().map(|(_, n)| n).sum();
    Some(RequestTokens {
        request: x.request,
        shape,
        model,
        overhead: overhead(shape, tools.len()),
        tools,
        total,
        exact: encoding.is_some(),
        tokenizer: match (encoding, shape) {
            (Some(encoding), _) => encoding,
            (None, ApiShape::Gemini) => "chars/4",
            (None, _) => "chars/3.5",
        },
    })
}

/// The text counted for one entry: compact JSON, keys in the order they were sent.
pub fn entry_text(entry: &Value) -> String {
    serde_json::to_string(entry).unwrap_or_default()
}

/// Anthropic's documented estimate: characters / 3.5, rounded up.
pub fn anthropic_estimate(text: &str) -> usize {
    (text.chars().count() as f64 / ANTHROPIC_CHARS_PER_TOKEN).ceil() as usize
}

/// Google's documented estimate for Gemini: characters / 4, rounded up.
pub fn gemini_estimate(text: &str) -> usize {
    (text.chars().count() as f64 / GEMINI_CHARS_PER_TOKEN).ceil() as usize
}

/// The provider's tool-use overhead for a request with `tools` tools (see the module docs).
pub fn overhead(shape: ApiShape, tools: usize) -> (usize, usize) {
    if tools == 0 {
        return (0, 0);
    }
    match shape {
        ApiShape::Anthropic => ANTHROPIC_OVERHEAD,
        ApiShape::Gemini => (0, 0),
        ApiShape::Openai | ApiShape::OpenaiChat => (
            OPENAI_OVERHEAD_PER_REQUEST,
            OPENAI_OVERHEAD_PER_REQUEST + OPENAI_OVERHEAD_PER_TOOL * tools,
        ),
    }
}

/// The tools entry `i` holds when it has no name of its own (Gemini's `functionDeclarations`):
/// their names, comma separated.
fn held_names(x: &crate::analysis::LlmExchange, i: usize) -> Option<String> {
    let names: Vec<&str> = x
        .offered
        .tools
        .iter()
        .filter(|t| t.entry == Some(i))
        .map(|t| t.name.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

fn entry_name(shape: ApiShape, entry: &Value) -> Option<String> {
    let holder = match shape {
        ApiShape::OpenaiChat => entry.get("function")?,
        ApiShape::Anthropic | ApiShape::Openai | ApiShape::Gemini => entry,
    };
    holder.get("name")?.as_str().map(str::to_string)
}

#[cfg(all(test, feature = "native"))]
mod tests {
    use super::*;
    use crate::analysis::report;
    use crate::trace::{Channel, Event, HttpInfo, Lane};
    use crate::wire::convert::tool_to_api;
    use serde_json::json;

    /// The seed article's tool, as `tools/list` gives it.
    fn weather() -> Value {
        json!({
            "name": "get_weather",
            "description": "Get current weather information for a location",
            "inputSchema": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            },
        })
    }

    fn request_event(seq: u64, url: &str, body: &Value) -> Event {
        let mut e = Event::with_bytes(
            seq,
            crate::trace::now(),
            Lane::Host,
            Lane::Llm,
            Channel::LlmHttp,
            serde_json::to_vec(body).expect("json"),
        );
        e.set_http(Some(HttpInfo {
            method: Some("POST".into()),
            url: Some(url.into()),
            ..HttpInfo::default()
        }));
        e
    }

    fn tokens_for(shape: ApiShape, model: &str, tools: &[Value]) -> RequestTokens {
        let entries: Vec<Value> = tools
            .iter()
            .map(|t| {
                let name = t["name"].as_str().expect("name");
                tool_to_api(shape, t, name).expect("convertible")
            })
            .collect();
        let body = json!({"model": model, "max_tokens": 64, "tools": entries, "messages": []});
        let url = format!("https://api.example.com{}", shape.path());
        let events = vec![request_event(0, &url, &body)];
        let r = report(&events);
        let mut out = tool_tokens(&r, &Tiktoken);
        assert_eq!(out.len(), 1);
        out.remove(0)
    }

    #[test]
    fn the_weather_tool_in_o200k_is_stable() {
        let chat = tokens_for(ApiShape::OpenaiChat, "gpt-4o", &[weather()]);
        let responses = tokens_for(ApiShape::Openai, "gpt-5", &[weather()]);
        for t in [&chat, &responses] {
            assert!(t.exact);
            assert_eq!(t.tokenizer, "o200k_base");
            assert_eq!(t.tools.len(), 1);
            assert_eq!(t.tools[0].0, "get_weather");
            assert_eq!(t.total, t.tools[0].1);
            assert_eq!(t.overhead, (12, 19));
        }
        // Pinned: a change here means the tokenizer or the serialization changed.
        assert_eq!(responses.tools[0].1, 40, "Responses entry");
        assert_eq!(
            chat.tools[0].1, 43,
            "Chat Completions entry (one more nesting level)"
        );
        // Plausible: between a quarter and a half of the characters of the JSON.
        let text = entry_text(
            &tool_to_api(ApiShape::Openai, &weather(), "get_weather").expect("convertible"),
        );
        let chars = text.chars().count();
        assert!(
            (chars / 5..chars / 2).contains(&responses.tools[0].1),
            "{} tokens for {chars} chars: {text}",
            responses.tools[0].1
        );
    }

    #[test]
    fn o200k_counts_known_text() {
        assert_eq!(o200k_tokens(""), 0);
        assert_eq!(o200k_tokens("hello world"), 2);
        // Special-token text is counted as ordinary text, never as one special token.
        assert!(o200k_tokens("<|endoftext|>") > 1);
    }

    #[test]
    fn anthropic_is_a_documented_estimate() {
        let t = tokens_for(ApiShape::Anthropic, "claude-sonnet-4-5", &[weather()]);
        assert!(!t.exact);
        assert_eq!(t.tokenizer, "chars/3.5");
        assert_eq!(t.overhead, ANTHROPIC_OVERHEAD);
        let text = entry_text(
            &tool_to_api(ApiShape::Anthropic, &weather(), "get_weather").expect("convertible"),
        );
        assert_eq!(
            text,
            r#"{"name":"get_weather","description":"Get current weather information for a location","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}"#
        );
        assert_eq!(t.tools, [("get_weather".to_string(), 54)]);
        assert_eq!(
            anthropic_estimate(&text),
            (text.chars().count() * 2).div_ceil(7)
        );
    }

    #[test]
    fn totals_models_and_requests_without_tools() {
        let mut other = weather();
        other["name"] = json!("get_forecast");
        other["description"] =
            json!("Get a three-day forecast for a location, by day and by night");
        let t = tokens_for(ApiShape::OpenaiChat, "gpt-4o-mini", &[weather(), other]);
        assert_eq!(t.tools.len(), 2);
        assert_eq!(t.tools[1].0, "get_forecast");
        assert!(t.tools[1].1 > t.tools[0].1);
        assert_eq!(t.total, t.tools[0].1 + t.tools[1].1);
        assert_eq!(t.overhead, (12, 26));
        assert_eq!(t.model.as_deref(), Some("gpt-4o-mini"));
        // An older model is counted with its own encoding.
        let old = tokens_for(ApiShape::OpenaiChat, "gpt-4-0613", &[weather()]);
        assert_eq!(old.tokenizer, "cl100k_base");
        assert!(old.exact);
        // No tools: nothing to count, no overhead.
        let none = tokens_for(ApiShape::Anthropic, "claude", &[]);
        assert_eq!((none.total, none.overhead), (0, (0, 0)));
    }

    #[test]
    fn carried_counts_are_the_tokenizers_figures() {
        let mut other = weather();
        other["name"] = json!("get_forecast");
        other["description"] = json!("A three-day forecast, by day and by night");
        let request = |seq, shape: ApiShape, model: Option<&str>| {
            let entries: Vec<Value> = [weather(), other.clone()]
                .iter()
                .map(|t| tool_to_api(shape, t, t["name"].as_str().expect("name")))
                .collect::<Result<_, _>>()
                .expect("convertible");
            let mut body = json!({"max_tokens": 64, "tools": entries, "messages": []});
            if let Some(model) = model {
                body["model"] = json!(model);
            }
            let url = format!("https://api.example.com{}", shape.path());
            request_event(seq, &url, &body)
        };
        let events = vec![
            request(0, ApiShape::OpenaiChat, Some("gpt-4o")),
            request(1, ApiShape::OpenaiChat, Some("gpt-4-0613")),
            request(2, ApiShape::Openai, None),
            request(3, ApiShape::Anthropic, Some("claude-sonnet-4-5")),
        ];
        let r = report(&events);
        let native = tool_tokens(&r, &Tiktoken);
        assert_eq!(native.len(), 4);
        assert_eq!(native[1].tokenizer, "cl100k_base");
        // What a page carries, read back: the same figures, request by request.
        let json = serde_json::to_string(&Carried::of(&events, &Tiktoken)).expect("json");
        let carried: Carried = serde_json::from_str(&json).expect("carried");
        assert_eq!(tool_tokens(&r, &carried), native);
        // Counts, not texts: 16 hex digits for each of the 6 (encoding, entry) pairs.
        assert!(!json.contains("get_weather"), "{json}");
        assert_eq!(json.matches("\":").count(), 2 + 3 + 6, "{json}");
        // Without them only Anthropic's estimate can be made.
        let none = tool_tokens(&r, &Carried::default());
        assert_eq!(none, native[3..]);
        // A text the native side did not count is unknown, not zero.
        let mut changed = events.clone();
        changed[0] = request(0, ApiShape::OpenaiChat, Some("gpt-4o-mini"));
        let r = report(&changed);
        assert_eq!(
            tool_tokens(&r, &carried).len(),
            3,
            "gpt-4o-mini was not named"
        );
    }
}
