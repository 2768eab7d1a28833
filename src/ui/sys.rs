//! What the processor and the system offer beyond `std` for the app's heavy work: a hint that
//! memory is read soon, the memory a big computation freed given back, a background thread
//! kept from competing with the window.
//!
//! Each is one foreign call behind a `cfg`, with nothing in its place where there is no such
//! call (the browser's wasm among them), so the code that uses them reads the same on every
//! platform, and the crate's `unsafe` outside the tap and the trace's list stays in this file.

/// A hint to the processor that the cache line at `at` is read soon. Nothing where there is
/// no such instruction (or none this code knows).
#[inline(always)]
pub fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is part of SSE, which every x86_64 processor has; a prefetch
    // never faults nor changes memory, whatever the address, so `at` need not even be valid
    // (the callers' are always inside a live allocation).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Lowers the calling thread's priority below the window's: a big trace's findings take
/// seconds of a core, and a keystroke in the message list's filter (two threads) should not
/// share the machine's cores with them. Nothing where threads have no nice value of their own.
pub fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take no pointers and have no memory preconditions; on
    // Linux `PRIO_PROCESS` with a thread id changes that thread only. A failure leaves the
    // priority as it was, which is only slower.
    unsafe {
        let tid = libc::gettid();
        let _ = libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

/// Returns memory the allocator holds but no longer uses to the system. glibc keeps what a
/// big computation freed (the text of a loaded file, the intermediate data of the findings)
/// in its arenas, where it still counts as the app's memory.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only hands free pages of glibc's own allocator
    // back to the kernel; it has no preconditions and leaves every live allocation alone.
    unsafe {
        libc::malloc_trim(0);
    }
}
