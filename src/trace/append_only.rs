//! A list that grows while others read it: the store's events.
//!
//! A followed session gains events every few hundred milliseconds while the findings of an
//! earlier snapshot are still being computed on a background thread. Behind an `Arc<Vec<_>>`,
//! each append while that thread held its copy of the `Arc` would clone every item.
//! [`AppendOnly`] is shared the same way (a clone is a reference count), but an append writes
//! after the last item in place when the buffer has room and no other handle has appended
//! since: readers only ever see the prefix they were handed, which is never written again.
//! When there is no room the items move (or, when others still read the old buffer, are
//! copied) into one half as big again, so appending stays amortised O(1) per item.
//!
//! It is generic, and uses nothing but `std`, so that `.ci/miri` can compile this one file
//! alone and run its tests under Miri: the `unsafe` here is the crate's one hand-made
//! container.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// An append-only, cheaply cloned list that derefs to `[T]`.
pub struct AppendOnly<T> {
    buffer: Arc<Buffer<T>>,
    /// How many of the buffer's items this handle sees.
    len: usize,
}

/// Memory for `capacity` items, of which the first `*filled` are initialised. Initialised
/// items are never written, moved or dropped until the buffer itself is dropped (or, when one
/// handle owns it alone, moved out whole into a bigger buffer).
struct Buffer<T> {
    ptr: NonNull<T>,
    capacity: usize,
    filled: Mutex<usize>,
}

// SAFETY: a Buffer owns its items as a Vec<T> does, so sending it to another thread sends
// them (T: Send) and the thread that drops the last handle drops them. Handles on several
// threads read the initialised prefix through `&T` at the same time (T: Sync).
unsafe impl<T: Send + Sync> Send for Buffer<T> {}
// SAFETY: through a `&Buffer` the initialised prefix is only read (T: Sync), and an append
// moves items made on the appending thread into slots past it (T: Send), one handle at a time
// under the `filled` lock; no `&Buffer` gives mutable access to an initialised item.
unsafe impl<T: Send + Sync> Sync for Buffer<T> {}

impl<T> Buffer<T> {
    fn from_vec(items: Vec<T>) -> Buffer<T> {
        let mut items = ManuallyDrop::new(items);
        let (ptr, len, capacity) = (items.as_mut_ptr(), items.len(), items.capacity());
        Buffer {
            // A Vec's pointer is never null (dangling when it has no capacity).
            ptr: NonNull::new(ptr).unwrap_or(NonNull::dangling()),
            capacity,
            filled: Mutex::new(len),
        }
    }

    fn filled(&self) -> MutexGuard<'_, usize> {
        self.filled.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves the first `filled` items out into a new vector with room for `capacity` (at
    /// least `filled`), leaving none in the buffer: for a handle that owns the buffer alone.
    fn take(&mut self, capacity: usize) -> Vec<T> {
        let filled = self
            .filled
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let mut all: Vec<T> = Vec::with_capacity(capacity.max(*filled));
        // SAFETY: `&mut self` means no handle reads the buffer. Its first `filled` items are
        // initialised; they are copied bitwise into `all`, which has room for them and owns
        // them from then on, and `filled` becomes 0, so the buffer drops none of them.
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), all.as_mut_ptr(), *filled);
            all.set_len(*filled);
        }
        *filled = 0;
        all
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        let filled = *self.filled();
        // SAFETY: ptr and capacity came from a Vec<T> (`from_vec`), and its first `filled`
        // items are initialised (appends raise `filled` only after writing, `take` lowers it
        // after moving them out); this rebuilds that Vec and drops it, once.
        unsafe {
            drop(Vec::from_raw_parts(
                self.ptr.as_ptr(),
                filled,
                self.capacity,
            ));
        }
    }
}

impl<T> Clone for AppendOnly<T> {
    fn clone(&self) -> Self {
        AppendOnly {
            buffer: Arc::clone(&self.buffer),
            len: self.len,
        }
    }
}

impl<T> Default for AppendOnly<T> {
    fn default() -> Self {
        AppendOnly::from(Vec::new())
    }
}

impl<T> From<Vec<T>> for AppendOnly<T> {
    fn from(items: Vec<T>) -> Self {
        let len = items.len();
        AppendOnly {
            buffer: Arc::new(Buffer::from_vec(items)),
            len,
        }
    }
}

impl<T> Deref for AppendOnly<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` items of the buffer are initialised (len <= filled), and
        // nothing writes, moves or drops them while a handle holds the buffer: appends write
        // past `filled`, and `take` needs the buffer's only handle (`&mut`), which this
        // borrow of `self` rules out for as long as the slice lives.
        unsafe { std::slice::from_raw_parts(self.buffer.ptr.as_ptr(), self.len) }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for AppendOnly<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone> AppendOnly<T> {
    /// Appends `new`, in place when it fits after the last item and no other handle has
    /// appended to this buffer since this one did; otherwise into a new buffer with room for
    /// half as many again (the old one stays with the handles that read it).
    pub fn append(&mut self, new: Vec<T>) {
        if new.is_empty() {
            return;
        }
        {
            let mut filled = self.buffer.filled();
            if *filled == self.len && self.buffer.capacity - self.len >= new.len() {
                for (k, item) in new.into_iter().enumerate() {
                    // SAFETY: slot len + k is inside the capacity and not initialised (it is
                    // at or past `filled`, which no handle reads beyond); holding the lock
                    // keeps any other handle from writing there. `filled` grows after the
                    // write, so a panic between two leaves only written slots counted.
                    unsafe { self.buffer.ptr.as_ptr().add(self.len + k).write(item) };
                    *filled += 1;
                }
                self.len = *filled;
                return;
            }
        }
        let wanted = self.len + new.len();
        // (What others appended and dropped is moved too, then dropped: room for it.)
        let filled = *self.buffer.filled();
        let room = wanted.max(self.len + self.len / 2).max(filled);
        let mut grown = match Arc::get_mut(&mut self.buffer) {
            // No other handle: the items move.
            Some(buffer) => {
                let mut all = buffer.take(room);
                all.truncate(self.len);
                all
            }
            // Others read the old buffer: the items this handle sees are copied.
            None => {
                let mut all = Vec::with_capacity(room);
                all.extend_from_slice(self);
                all
            }
        };
        grown.extend(new);
        *self = AppendOnly::from(grown);
    }

    /// Makes room for `more` items after the last one without a new buffer.
    pub fn reserve(&mut self, more: usize) {
        if self.buffer.capacity - self.len >= more {
            return;
        }
        let len = self.len;
        let room = (len + more).max(*self.buffer.filled());
        let keep = std::mem::take(self);
        let all = match Arc::try_unwrap(keep.buffer) {
            Ok(mut buffer) => {
                let mut all = buffer.take(room);
                all.truncate(len);
                all
            }
            Err(shared) => {
                let mut all = Vec::with_capacity(room);
                all.extend_from_slice(&AppendOnly {
                    buffer: shared,
                    len,
                });
                all
            }
        };
        *self = AppendOnly::from(all);
    }
}

#[cfg(test)]
mod tests {
    use super::AppendOnly;

    /// Items on the heap, so that Miri sees one dropped twice or never.
    fn items(seqs: std::ops::Range<u64>) -> Vec<String> {
        seqs.map(|n| n.to_string()).collect()
    }

    fn seqs(items: &[String]) -> Vec<u64> {
        items.iter().map(|s| s.parse().expect("a number")).collect()
    }

    /// Handles keep seeing what they were handed while another appends, in place or not.
    #[test]
    fn readers_keep_their_prefix_while_one_appends() {
        let mut list = AppendOnly::from(items(0..3));
        list.reserve(10);
        let first = list.clone();
        list.append(items(3..5));
        assert_eq!(seqs(&first), [0, 1, 2]);
        assert_eq!(seqs(&list), [0, 1, 2, 3, 4]);
        // A stale handle appending gets a buffer of its own.
        let mut stale = first.clone();
        stale.append(items(9..10));
        assert_eq!(seqs(&stale), [0, 1, 2, 9]);
        assert_eq!(seqs(&list), [0, 1, 2, 3, 4]);
        // Past the capacity, with readers and without.
        let reader = list.clone();
        list.append(items(5..40));
        assert_eq!(seqs(&reader), [0, 1, 2, 3, 4]);
        assert_eq!(seqs(&list), (0..40).collect::<Vec<_>>());
        drop((reader, first, stale));
        list.append(items(40..200));
        assert_eq!(seqs(&list), (0..200).collect::<Vec<_>>());
        let mut empty = AppendOnly::default();
        empty.append(items(1..2));
        assert_eq!(seqs(&empty), [1]);
    }

    /// What a stale handle's buffer holds past its own prefix (another handle appended it)
    /// is dropped once, whether the stale handle moves its items out or copies them.
    #[test]
    fn a_stale_handle_that_grows_drops_what_it_does_not_see_once() {
        let mut list = AppendOnly::from(items(0..2));
        list.reserve(8);
        let mut stale = list.clone();
        list.append(items(2..6));
        drop(list);
        // `stale` now owns the buffer alone: 6 items, of which it sees 2.
        stale.append(items(100..120));
        assert_eq!(seqs(&stale)[..3], [0, 1, 100]);
        let mut shared = stale.clone();
        shared.reserve(1000);
        assert_eq!(seqs(&shared), seqs(&stale));
        let mut alone = AppendOnly::from(items(0..4));
        let mut seen = AppendOnly {
            buffer: alone.buffer.clone(),
            len: 2,
        };
        alone.append(items(4..5));
        drop(alone);
        seen.reserve(100);
        assert_eq!(seqs(&seen), [0, 1]);
    }

    /// Readers on other threads while this one appends (run under Miri by `.ci/miri`: every
    /// item is dropped exactly once, and no read races a write).
    #[test]
    fn appends_beside_threads_that_read() {
        let mut list = AppendOnly::from(Vec::new());
        list.reserve(64);
        let mut threads = Vec::new();
        for round in 0..20u64 {
            let reader = list.clone();
            threads.push(std::thread::spawn(move || {
                let sum: u64 = seqs(&reader).iter().sum();
                (reader.len(), sum)
            }));
            list.append(items(round * 10..round * 10 + 10));
        }
        for (k, t) in threads.into_iter().enumerate() {
            let (len, sum) = t.join().expect("reader");
            assert_eq!(len, k * 10);
            assert_eq!(sum, (0..len as u64).sum::<u64>());
        }
        assert_eq!(list.len(), 200);
    }
}
