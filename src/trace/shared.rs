//! [`Shared`]: a text that many events point at (a lane name, a method, a revision).
//!
//! A trace has a handful of distinct names and a million events that carry them, so each
//! distinct text is allocated once and shared. The handle is one pointer wide (an `Arc` of a
//! `String`, not an `Arc<str>`): it sits in every event and every derived record. Texts read
//! from a file ([`intern`], which `Deserialize` uses) share the copy made before on the same
//! thread: lane names, HTTP methods, URLs, header names and values.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use rustc_hash::FxBuildHasher;

/// A shared, immutable text; dereferences to `str`, compares and hashes like one.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Shared(Arc<String>);

impl Shared {
    pub fn new(text: impl Into<String>) -> Self {
        Shared(Arc::new(text.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether both handles point at the same allocation.
    pub fn ptr_eq(a: &Shared, b: &Shared) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl Deref for Shared {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Shared {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Shared {
    fn from(text: &str) -> Self {
        Shared::new(text)
    }
}

impl From<String> for Shared {
    fn from(text: String) -> Self {
        Shared::new(text)
    }
}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shared {
    /// Reads a text as [`intern`] shares it.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::event::map_str(d, intern)
    }
}

/// How many distinct texts each thread remembers for [`intern`]; when one more comes, it
/// forgets them all and starts again, so texts that never repeat (a request id in a header)
/// cannot make it grow without end, and those that do repeat are shared again at once.
const INTERNED: usize = 4096;

/// Longer texts than this are not remembered (a long header value rarely repeats), so what a
/// thread remembers stays under a megabyte.
const INTERNED_UP_TO: usize = 256;

thread_local! {
    /// Texts seen lately on this thread, so equal texts share one allocation.
    static TEXTS: RefCell<HashSet<Shared, FxBuildHasher>> = RefCell::new(HashSet::default());
}

/// A shared copy of `text`: the one this thread made before, or a new one it remembers (up to
/// [`INTERNED`] of them, of at most [`INTERNED_UP_TO`] bytes).
pub fn intern(text: &str) -> Shared {
    if text.len() > INTERNED_UP_TO {
        return Shared::from(text);
    }
    TEXTS.with(|texts| {
        let mut texts = texts.borrow_mut();
        if let Some(known) = texts.get(text) {
            return known.clone();
        }
        if texts.len() >= INTERNED {
            texts.clear();
        }
        let new = Shared::from(text);
        texts.insert(new.clone());
        new
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pointer_wide_and_behaves_like_str() {
        assert_eq!(std::mem::size_of::<Shared>(), 8);
        assert_eq!(std::mem::size_of::<Option<Shared>>(), 8);
        let a = Shared::from("tools/list");
        let b = a.clone();
        assert!(Shared::ptr_eq(&a, &b));
        assert_eq!(a, "tools/list");
        assert_eq!(&*a, "tools/list");
        assert_eq!(format!("{a} {a:?}"), "tools/list \"tools/list\"");
        let set: std::collections::HashSet<Shared> = [a].into_iter().collect();
        assert!(set.contains("tools/list"));
    }

    #[test]
    fn texts_read_alike_share_one_copy_and_the_memory_stays_bounded() {
        let [a, b]: [Shared; 2] =
            serde_json::from_str(r#"["content-type", "content\u002dtype"]"#).expect("read");
        assert_eq!(a, "content-type");
        assert!(
            Shared::ptr_eq(&a, &b),
            "an escaped spelling is the same text"
        );
        assert!(!Shared::ptr_eq(&a, &intern("accept")));
        // Texts that never repeat fill the table, which then starts again: still correct.
        for i in 0..INTERNED + 10 {
            assert_eq!(intern(&format!("x-request-{i}")), *format!("x-request-{i}"));
        }
        TEXTS.with(|t| assert!(t.borrow().len() <= INTERNED));
        assert!(Shared::ptr_eq(&intern("accept"), &intern("accept")));
        // A long text is a copy of its own, not remembered.
        let long = "v".repeat(INTERNED_UP_TO + 1);
        assert_eq!(intern(&long), *long);
        assert!(!Shared::ptr_eq(&intern(&long), &intern(&long)));
        TEXTS.with(|t| assert!(!t.borrow().contains(long.as_str())));
    }
}
