//! The Landlock ruleset of a confined command.
//!
//! The agent is multi-threaded, so between `fork` and `exec` only async-signal-safe code
//! may run: no allocation, no locks. The ruleset (paths opened, rules added) is therefore
//! built in the parent with the `landlock` crate; the child only calls
//! `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self` on the prepared descriptor.
use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, ABI,
};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The rights asked for; the crate drops what the running kernel does not know.
const TARGET: ABI = ABI::V7;

/// The kernel's Landlock ABI version (0: no Landlock).
pub fn kernel_abi() -> i32 {
    static ABI_VERSION: OnceLock<i32> = OnceLock::new();
    *ABI_VERSION.get_or_init(|| {
        // LANDLOCK_CREATE_RULESET_VERSION: returns the ABI instead of a ruleset.
        // SAFETY: no pointers are passed (NULL attr, size 0).
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        if v < 0 {
            0
        } else {
            v as i32
        }
    })
}

/// A ruleset ready to be enforced in a child (nothing when there is nothing to enforce or
/// the kernel has no Landlock).
#[derive(Debug)]
pub struct Prepared {
    fd: Option<OwnedFd>,
}

impl Prepared {
    pub fn none() -> Prepared {
        Prepared { fd: None }
    }

    /// Will the child be confined?
    pub fn enforced(&self) -> bool {
        self.fd.is_some()
    }

    /// Make `cmd`'s child restrict itself before exec.
    pub fn install(&self, cmd: &mut std::process::Command) {
        let Some(fd) = &self.fd else { return };
        let raw = fd.as_raw_fd();
        // SAFETY: the closure only makes two raw system calls (async-signal-safe) and
        // reads errno; the descriptor stays open in the parent until spawn returned.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::syscall(libc::SYS_landlock_restrict_self, raw, 0u32) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

fn err(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(format!("sandbox: {e}"))
}

/// Build the ruleset: with `fs`, read everywhere and write only under `write`; with
/// `no_network`, no TCP connect or bind at all.
pub fn prepare(fs: bool, write: &[PathBuf], no_network: bool) -> std::io::Result<Prepared> {
    if kernel_abi() == 0 || (!fs && !no_network) {
        return Ok(Prepared::none());
    }
    let mut rs = Ruleset::default();
    if fs {
        rs = rs.handle_access(AccessFs::from_all(TARGET)).map_err(err)?;
    }
    if no_network {
        rs = rs
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let mut created = rs.create().map_err(err)?;
    if fs {
        created = created
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(TARGET)))
            .map_err(err)?
            .add_rules(path_beneath_rules(write, AccessFs::from_all(TARGET)))
            .map_err(err)?;
    }
    let fd: Option<OwnedFd> = created.into();
    Ok(Prepared { fd })
}
