//! Work split in two halves, the second on another thread when there is one.
//!
//! Loading a big trace, laying out its diagram and filtering its message list each split their
//! work in two. Where threads cannot be started (a browser runs the viewer on one thread, and
//! `std::thread` there fails) or there is one core, both halves run here, one after the other.

/// Whether [`join`] runs its halves on two threads (more than one core, and threads can be
/// started).
pub fn has_threads() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
}

/// Runs `first` here and `second` on a scoped thread when the machine has more than one core
/// and threads can be started; otherwise both here. A panic in `second` is raised here.
pub fn join<A, B>(first: impl FnOnce() -> A, second: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    if !has_threads() {
        return (first(), second());
    }
    std::thread::scope(|s| {
        let handle = s.spawn(second);
        let a = first();
        match handle.join() {
            Ok(b) => (a, b),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_halves_run_and_keep_their_order() {
        let data: Vec<u32> = (0..1000).collect();
        let (a, b) = super::join(
            || data[..500].iter().sum::<u32>(),
            || data[500..].iter().sum::<u32>(),
        );
        assert_eq!((a, b), ((0..500).sum(), (500..1000).sum()));
    }
}
