//! The product's `unsafe` container compiled alone, so that Miri can run its tests.
//!
//! Miri cannot interpret the whole `sightline` crate: its dependencies call C (a TLS back end,
//! the window system), and building them under Miri would take longer than the tests. The
//! shared append-only list (`trace::AppendOnly`) holds the crate's hand-written `unsafe` that
//! is not a system call; it uses only `std`, so this crate compiles that very file
//! (`#[path]`, not a copy) and runs the tests written beside it, where Miri checks every
//! access, every drop and every race between the reading threads and the appending one.

#[path = "../../src/trace/append_only.rs"]
pub mod append_only;
