//! [`Shared`]: a text that many events point at (a lane name, a method, a revision).
//!
//! A trace has a handful of distinct names and a million events that carry them, so each
//! distinct text is allocated once and shared. The handle is one pointer wide (an `Arc` of a
//! `String`, not an `Arc<str>`): it sits in every event and every derived record.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

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
}
