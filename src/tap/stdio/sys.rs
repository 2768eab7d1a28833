//! What the tap's stdio needs from the operating system, in one place: keeping a server and
//! whatever it starts together (a process group on Unix, a Job Object on Windows), asking it
//! to stop and making it stop, how it ended, waiting on its pipes with a deadline, our own
//! stdin and stdout as unbuffered handles, and the connected pair of streams an in-process
//! client (the host's rmcp client, the doctor's probe) talks to the tap through. Everything
//! above this module is the same on every system.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
