//! The LLM wire formats: what crosses between a host and an LLM API, as pure code.
//!
//! The recorder (`tap`), the host (`host`), the analysis and the app all read the same bytes:
//! request and response bodies in four API shapes, Server-Sent Events, headers that carry
//! credentials. Each of those has one definition here, with no I/O (std, serde_json and a few
//! pure crates), so no two of those modules have to import each other to share it.
//!
//! - [`api`]: the four LLM API shapes Sightline speaks.
//! - [`convert`]: conversions between MCP and each API shape (tools, calls, results).
//! - [`catalog`]: which tools the model sees, under which names, and why some are dropped.
//! - [`offered`]: what a request offers the model (a host's own tools, the API's, MCP tools
//!   whole, deferred or in a namespace) and the calls it makes, by each host's naming rule.
//! - [`gate`]: who may talk to Sightline's own HTTP listeners (loopback `Host`, token,
//!   resume), parsed from the request's text.
//! - [`sse`]: the Server-Sent Events parser.
//! - [`reassemble`]: streamed answers back to whole bodies, per API shape.
//! - [`remote`]: when the API is itself the MCP client: the remote servers a request hands it
//!   and what its MCP client did (lists, calls, approvals), read from both APIs' shapes.
//! - [`redact`]: credential headers and secrets, kept out of traces and logs.
//! - [`redact_url`]: credentials in URLs and command lines, the same way.
//! - [`text`]: a cut to N characters with `…`, text on one line, microseconds as
//!   milliseconds: the small shapes of text every rendering shares.
//! - [`traceparent`]: W3C trace context in MCP `_meta` (SEP-414).

pub mod api;
pub mod catalog;
pub mod convert;
pub mod gate;
pub mod offered;
pub mod reassemble;
pub mod redact;
pub mod redact_url;
pub mod remote;
pub mod sse;
pub mod text;
pub mod traceparent;
