//! A `claude` dies with paddockd: the kernel's parent-death signal (Linux `PR_SET_PDEATHSIG`),
//! set in the child between fork and exec. The only `unsafe` code of the daemon.
//!
//! The signal is sent when the *thread* that forked the child ends, not the process, which is
//! why every claude is forked from one thread that lives as long as the daemon
//! (`runner/forker.rs`), never from a pool thread that may exit when idle.

use tokio::process::Command;

/// Makes the process `cmd` starts receive SIGKILL when its parent dies. A parent that died
/// already (between the fork and the `prctl`, when no signal would come) makes the start
/// fail instead of leaving an orphan.
pub fn die_with_parent(cmd: &mut Command) {
    let parent = rustix::process::getpid();
    #[allow(unsafe_code)]
    // SAFETY: the closure runs in the forked child before exec, where only async-signal-safe
    // work is allowed: it makes two raw system calls (prctl, getppid) through rustix, which
    // neither allocate nor take locks, and builds its error from a raw errno (no allocation).
    // It touches no memory shared with the parent's other threads.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // The parent died before the signal was armed: the child was reparented, and
            // nothing will kill it. Fail the start rather than run unowned.
            if rustix::process::getppid() != Some(parent) {
                return Err(rustix::io::Errno::SRCH.into());
            }
            Ok(())
        });
    }
}
