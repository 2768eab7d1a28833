//! The store's events as a list that grows while others read it.
//!
//! A followed session gains events every few hundred milliseconds while the findings of an
//! earlier snapshot are still being computed on a background thread. With the events in an
//! `Arc<Vec<Event>>`, each append while that thread held its copy of the `Arc` cloned every
//! event. [`Events`] is shared the same way (a clone is a reference count), but an append
//! writes after the last event in place when the buffer has room and no other handle has
//! appended since: readers only ever see the prefix they were handed, which is never written
//! again. When there is no room the events move (or, when others still read the old buffer,
//! are copied) into one half as big again, so appending stays amortised O(1) per event.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::trace::Event;

/// An append-only, cheaply cloned list of events that derefs to `[Event]`.
#[derive(Clone)]
pub struct Events {
    buffer: Arc<Buffer>,
    /// How many of the buffer's events this handle sees.
    len: usize,
}

/// Memory for `capacity` events, of which the first `*filled` are initialised. Initialised
/// events are never written, moved or dropped until the buffer itself is dropped (or, when one
/// handle owns it alone, moved out whole into a bigger buffer).
struct Buffer {
    ptr: NonNull<Event>,
    capacity: usize,
    filled: Mutex<usize>,
}

// SAFETY: a Buffer owns its events like a Vec<Event> does; shared access only ever reads the
// initialised prefix (immutable from then on), and writes past it are serialised by `filled`.
unsafe impl Send for Buffer {}
// SAFETY: see above; `Event` is Sync, and no `&Buffer` gives mutable access to an initialised event.
unsafe impl Sync for Buffer {}

impl Buffer {
    fn from_vec(events: Vec<Event>) -> Buffer {
        let mut events = ManuallyDrop::new(events);
        let (ptr, len, capacity) = (events.as_mut_ptr(), events.len(), events.capacity());
        Buffer {
            // A Vec's pointer is never null (dangling when it has no capacity).
            ptr: NonNull::new(ptr).unwrap_or(NonNull::dangling()),
            capacity,
            filled: Mutex::new(len),
        }
    }

    fn filled(&self) -> std::sync::MutexGuard<'_, usize> {
        self.filled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let filled = *self.filled();
        // SAFETY: ptr, capacity and the initialised prefix came from a Vec<Event>
        // (`from_vec`); this rebuilds and drops it once.
        unsafe {
            drop(Vec::from_raw_parts(
                self.ptr.as_ptr(),
                filled,
                self.capacity,
            ));
        }
    }
}

impl Default for Events {
    fn default() -> Self {
        Events::from(Vec::new())
    }
}

impl From<Vec<Event>> for Events {
    fn from(events: Vec<Event>) -> Self {
        let len = events.len();
        Events {
            buffer: Arc::new(Buffer::from_vec(events)),
            len,
        }
    }
}

impl Deref for Events {
    type Target = [Event];

    fn deref(&self) -> &[Event] {
        // SAFETY: the first `len` events of the buffer are initialised (len <= filled) and are
        // never written again while the buffer lives, which `self.buffer` keeps it doing.
        unsafe { std::slice::from_raw_parts(self.buffer.ptr.as_ptr(), self.len) }
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Events {
    /// Appends `new`, in place when it fits after the last event and no other handle has
    /// appended to this buffer since this one did; otherwise into a new buffer with room for
    /// half as many again (the old one stays with the handles that read it).
    pub fn append(&mut self, new: Vec<Event>) {
        if new.is_empty() {
            return;
        }
        {
            let mut filled = self.buffer.filled();
            if *filled == self.len && self.buffer.capacity - self.len >= new.len() {
                for (k, event) in new.into_iter().enumerate() {
                    // SAFETY: slot len + k is inside the capacity and not initialised (it is
                    // at or past `filled`, which no handle reads beyond); holding the lock
                    // keeps any other handle from writing there.
                    unsafe { self.buffer.ptr.as_ptr().add(self.len + k).write(event) };
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
        let mut grown: Vec<Event> = Vec::with_capacity(room);
        match Arc::get_mut(&mut self.buffer) {
            // No other handle: the events move.
            Some(buffer) => {
                let filled = buffer.filled.get_mut().unwrap_or_else(|e| e.into_inner());
                // SAFETY: this handle owns the buffer alone; its first `filled` events are
                // initialised. They are moved (bitwise) into `grown` and `filled` set to 0, so
                // the old buffer drops none of them.
                unsafe {
                    std::ptr::copy_nonoverlapping(buffer.ptr.as_ptr(), grown.as_mut_ptr(), *filled);
                    grown.set_len(*filled);
                }
                *filled = 0;
                grown.truncate(self.len);
            }
            // Others read the old buffer: the events this handle sees are copied.
            None => grown.extend_from_slice(self),
        }
        grown.extend(new);
        *self = Events::from(grown);
    }

    /// Makes room for `more` events after the last one without a new buffer.
    pub fn reserve(&mut self, more: usize) {
        if self.buffer.capacity - self.len >= more {
            return;
        }
        let len = self.len;
        let filled = *self.buffer.filled();
        let keep = std::mem::take(self);
        let mut all: Vec<Event> = Vec::with_capacity((len + more).max(filled));
        match Arc::try_unwrap(keep.buffer) {
            Ok(mut buffer) => {
                let filled = buffer.filled.get_mut().unwrap_or_else(|e| e.into_inner());
                // SAFETY: as in `append`: this handle owned the buffer alone.
                unsafe {
                    std::ptr::copy_nonoverlapping(buffer.ptr.as_ptr(), all.as_mut_ptr(), *filled);
                    all.set_len(*filled);
                }
                *filled = 0;
                all.truncate(len);
            }
            Err(shared) => all.extend_from_slice(&Events {
                buffer: shared,
                len,
            }),
        }
        *self = Events::from(all);
    }
}

#[cfg(test)]
mod tests {
    use super::Events;
    use crate::trace::{Channel, Event, Lane, now};

    fn event(seq: u64) -> Event {
        Event::with_bytes(
            seq,
            now(),
            Lane::Host,
            Lane::server("s"),
            Channel::Stdio,
            format!("{{\"n\":{seq}}}").into_bytes(),
        )
    }

    fn seqs(events: &[Event]) -> Vec<u64> {
        events.iter().map(|e| e.seq).collect()
    }

    /// Handles keep seeing what they were handed while another appends, in place or not.
    #[test]
    fn readers_keep_their_prefix_while_one_appends() {
        let mut events = Events::from((0..3).map(event).collect::<Vec<_>>());
        events.reserve(10);
        let first = events.clone();
        events.append((3..5).map(event).collect());
        assert_eq!(seqs(&first), [0, 1, 2]);
        assert_eq!(seqs(&events), [0, 1, 2, 3, 4]);
        // A stale handle appending gets a buffer of its own.
        let mut stale = first.clone();
        stale.append(vec![event(9)]);
        assert_eq!(seqs(&stale), [0, 1, 2, 9]);
        assert_eq!(seqs(&events), [0, 1, 2, 3, 4]);
        // Past the capacity, with readers and without.
        let reader = events.clone();
        events.append((5..40).map(event).collect());
        assert_eq!(seqs(&reader), [0, 1, 2, 3, 4]);
        assert_eq!(seqs(&events), (0..40).collect::<Vec<_>>());
        drop((reader, first, stale));
        events.append((40..200).map(event).collect());
        assert_eq!(seqs(&events), (0..200).collect::<Vec<_>>());
        let mut empty = Events::default();
        empty.append(vec![event(1)]);
        assert_eq!(seqs(&empty), [1]);
    }

    /// Readers on other threads while the main thread appends (run under Miri or a sanitizer
    /// too: every event is dropped exactly once).
    #[test]
    fn appends_beside_threads_that_read() {
        let mut events = Events::from(Vec::new());
        events.reserve(64);
        let mut threads = Vec::new();
        for round in 0..20u64 {
            let reader = events.clone();
            threads.push(std::thread::spawn(move || {
                let sum: u64 = reader.iter().map(|e| e.seq).sum();
                (reader.len(), sum)
            }));
            events.append((round * 10..round * 10 + 10).map(event).collect());
        }
        for (k, t) in threads.into_iter().enumerate() {
            let (len, sum) = t.join().expect("reader");
            assert_eq!(len, k * 10);
            assert_eq!(sum, (0..len as u64).sum::<u64>());
        }
        assert_eq!(events.len(), 200);
    }
}
