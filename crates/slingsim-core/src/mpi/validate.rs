//! Checks a program before it runs, so a bad trace or hand-written program
//! fails with the operation that is wrong instead of hanging the run.

use super::op::{Completion, Op, Program, ANY_SOURCE, PROC_NULL};
use crate::error::{ConfigError, Result};

/// Checks communicators and every operation's communicator, peer and root.
pub fn validate(field: &str, p: &Program) -> Result<()> {
    if p.ranks == 0 {
        return Err(ConfigError::new(format!("{field}.ranks"), "a program needs at least one rank"));
    }
    if p.ops.len() != p.ranks as usize {
        return Err(ConfigError::new(format!("{field}.ops"), format!("{} ranks but operations for {}", p.ranks, p.ops.len())));
    }
    let world: Vec<u32> = (0..p.ranks).collect();
    if p.comms.first() != Some(&world) {
        return Err(ConfigError::new(format!("{field}.comms[0]"), "communicator 0 must be the world: ranks 0..ranks in order"));
    }
    for (c, members) in p.comms.iter().enumerate() {
        let mut seen = vec![false; p.ranks as usize];
        for &m in members {
            if m >= p.ranks || std::mem::replace(&mut seen[m as usize], true) {
                return Err(ConfigError::new(format!("{field}.comms[{c}]"), format!("member {m} is out of range (ranks: {}) or listed twice", p.ranks)));
            }
        }
        if members.is_empty() {
            return Err(ConfigError::new(format!("{field}.comms[{c}]"), "a communicator needs at least one member"));
        }
    }
    for (r, ops) in p.ops.iter().enumerate() {
        check_fences(field, r, ops)?;
        for (k, op) in ops.iter().enumerate() {
            let at = || format!("{field}.ops[{r}][{k}]");
            let comm_of = |comm: u32| -> Result<&Vec<u32>> {
                let m = p.comms.get(comm as usize).ok_or_else(|| ConfigError::new(at(), format!("communicator {comm} does not exist ({} defined)", p.comms.len())))?;
                if !m.contains(&(r as u32)) {
                    return Err(ConfigError::new(at(), format!("rank {r} is not a member of communicator {comm}")));
                }
                Ok(m)
            };
            let check_peer = |comm: u32, peer: i32, wildcard: bool| -> Result<()> {
                let size = comm_of(comm)?.len() as i32;
                let ok = (0..size).contains(&peer) || peer == PROC_NULL || (wildcard && peer == ANY_SOURCE);
                if !ok {
                    return Err(ConfigError::new(at(), format!("peer {peer} is not a rank of communicator {comm} (size {size})")));
                }
                Ok(())
            };
            match op {
                Op::Compute { ns } if !(ns.is_finite() && *ns >= 0.0) => return Err(ConfigError::new(at(), format!("compute time must be zero or positive, got {ns}"))),
                Op::Send { comm, peer, .. } | Op::Isend { comm, peer, .. } | Op::Put { comm, peer, .. } | Op::PutBurst { comm, peer, .. } | Op::Get { comm, peer, .. } | Op::FetchAdd { comm, peer, .. } => check_peer(*comm, *peer, false)?,
                Op::Recv { comm, peer, .. } | Op::Irecv { comm, peer, .. } => check_peer(*comm, *peer, true)?,
                Op::Coll { comm, root, counts, .. } => {
                    let size = comm_of(*comm)?.len();
                    if *root as usize >= size {
                        return Err(ConfigError::new(at(), format!("root {root} is not a rank of communicator {comm} (size {size})")));
                    }
                    if let Some(c) = counts {
                        if c.len() != size {
                            return Err(ConfigError::new(at(), format!("counts has {} entries for a communicator of {size}", c.len())));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A fence is released by the responses of the operations ahead of it; a
/// put with `completion = "arrival"` returns none, so a rank that fences
/// must give every put a completion (a repeating program's puts after its
/// last fence are ahead of its first one on the next pass).
fn check_fences(field: &str, r: usize, ops: &[Op]) -> Result<()> {
    if !ops.iter().any(|o| matches!(o, Op::Fence)) {
        return Ok(());
    }
    match ops.iter().position(|o| matches!(o, Op::Put { completion: Completion::Arrival, .. } | Op::PutBurst { completion: Completion::Arrival, .. })) {
        Some(k) => Err(ConfigError::new(
            format!("{field}.ops[{r}][{k}].completion"),
            format!("rank {r} fences, but this put has completion \"arrival\", which returns no response to release a fence; give it completion = \"transmit\" (one path) or \"delivery\" (several paths)"),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_behind_a_put_without_a_completion_is_refused_naming_the_put() {
        let mut p = Program::new(2);
        p.ops[0] = vec![Op::Put { comm: 0, peer: 1, bytes: 8, req: 0, completion: Completion::Arrival }, Op::Fence];
        let e = validate("job[0].program", &p).unwrap_err();
        assert_eq!(e.field, "job[0].program.ops[0][0].completion");
        assert!(e.message.contains("transmit"), "{e}");
        p.ops[0][0] = Op::Put { comm: 0, peer: 1, bytes: 8, req: 0, completion: Completion::Delivery };
        assert!(validate("job[0].program", &p).is_ok());
    }
}
