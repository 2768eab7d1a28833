//! Which events a filter matches, answered from the store: the filter and its needle
//! ([`Filter`], [`Needle`], [`Query`]: the display-filter language or free text), one event's
//! match ([`Filter::matches`]), the loop over many (`scan`), and the rows' byte sets that let a
//! big trace's search skip what cannot hold the text ([`ByteSets`], which the store makes).
//!
//! It sits with the store, below the panels, because the store owns the byte sets and the
//! message list, the diagram's filtered rows and the benches all ask the same questions; none
//! of it draws.

mod filter;
mod index;
pub(in crate::ui) mod scan;

pub use filter::{Filter, Found, Labels, NOT_READ, Needle, Query, Typed};
pub use index::ByteSets;
// For the message list's tests, which compare searches with plain reading.
#[cfg(test)]
pub(in crate::ui) use {filter::contains_folded, index::OWN_KEPT};
