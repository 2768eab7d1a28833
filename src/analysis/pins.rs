//! Tool pinning and rug pulls: has a tool's definition changed since it was approved?
//!
//! A server sends its tools' definitions at run time, in every `tools/list` result, so a tool
//! approved on day one can ask for the user's API keys on day seven (the Rug Pull, named by
//! Invariant Labs in April 2025). The specification does not require a host to ask again when
//! a definition changes. Sightline checks two ways:
//!
//! - **Within one trace**: every `tools/list` result of a server is compared with the previous
//!   one (typically after `notifications/tools/list_changed`). The same name with a different
//!   definition is a [`Finding::RugPull`]; the same definition under a new name is
//!   [`Finding::Renamed`]; other tools that came or went are [`Finding::Added`] and
//!   [`Finding::Removed`].
//! - **Against the pin file** ([`PinStore`]): `sightline pins accept TRACE` records the SHA-256
//!   of each tool's definition (and the definition itself, for the diff); a later trace whose
//!   definition hashes differently is a [`Finding::PinChanged`], the same rug pull across
//!   sessions.
//!
//! # What is hashed
//!
//! The tool's whole definition as the server sent it (`name`, `title`, `description`,
//! `inputSchema`, `outputSchema`, `annotations`, `_meta`, and any field a later revision adds),
//! serialized as canonical JSON ([`canonical_json`](crate::analysis::canonical::canonical_json)):
//!
//! - object keys sorted by code point (Rust `str` order), no whitespace;
//! - numbers by value, not spelling: a number with an integral value below 10^21 is written
//!   as an integer (`1`, `1.0` and `1e0` are all `1`), other numbers in the shortest form that
//!   reads back to the same `f64` (`0.1`, `1.5e-7`, `1e300`), and `-0` is `0`;
//! - strings with only `"`, `\` and the control characters below U+0020 escaped, everything
//!   else as it is. Strings are **not** Unicode-normalised (no NFC): Sightline has no
//!   normalisation tables, and two spellings that look alike but differ in code points are a
//!   real change for the model, which reads code points.
//!
//! The hex SHA-256 of that text is the pin. Key order and number spelling do not change it;
//! any change of content does.
//!
//! # Server identity
//!
//! Pins are kept per server: `serverInfo.name` from the `initialize` (or `server/discover`)
//! result, plus the command line from the `process` spawn event when the trace has one. A trace
//! whose server has no pins under its exact identity is checked against the pins of a server
//! with the same name, if any.
//!
//! Everything here is local: definitions are read from the trace and the pin file and never
//! sent anywhere.

mod findings;
mod store;
#[cfg(test)]
mod tests;

pub use findings::{
    Change, Comparer, FieldChange, Finding, changed_fields, compare_lists, definition_diff,
};
pub use store::{
    Accepted, PIN_FILE_VERSION, Pin, PinFile, PinFileError, PinStore, ServerPins, check_trace,
};
