//! What each round of a collective moves between groups of a network and
//! through each node: the input of a schedule bound (the fastest the
//! network's global links and NICs allow if the ranks go through the rounds
//! together), computed from the very rounds the MPI runtime runs
//! ([`super::collectives::schedule`]), so a bound and a simulation cannot
//! disagree about the algorithm.

use super::collectives::{schedule, Algorithm};
use super::op::Collective;
use crate::error::{ConfigError, Result};
use serde_json::{json, Value};

/// Bytes one round moves: between groups (`group_bytes[g][h]`, traffic
/// between two ranks of one node left out), and the most any node sends and
/// any node receives over the network.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundTraffic {
    pub group_bytes: Vec<Vec<u64>>,
    pub max_node_send: u64,
    pub max_node_recv: u64,
}

/// Round `k` of every rank, summed. `node_of[r]` and `group_of_node[n]`
/// place rank `r`; a rank with fewer rounds than `k` adds nothing;
/// `throttle` as `mpi.alltoall_throttle`.
pub fn round_traffic(
    kind: Collective,
    alg: Algorithm,
    bytes: u64,
    node_of: &[u32],
    group_of_node: &[u32],
    throttle: u32,
) -> Result<Vec<RoundTraffic>> {
    let p = node_of.len() as u32;
    let nodes = group_of_node.len();
    if let Some(&n) = node_of.iter().find(|&&n| n as usize >= nodes) {
        return Err(ConfigError::new("node_of", format!("node {n} is not below the {nodes} nodes group_of_node places")));
    }
    let groups = group_of_node.iter().copied().max().map_or(0, |g| g as usize + 1);
    let mut rounds: Vec<RoundTraffic> = Vec::new();
    let mut sent = Vec::<Vec<u64>>::new();
    let mut received = Vec::<Vec<u64>>::new();
    for r in 0..p {
        for (k, round) in schedule(kind, alg, p, r, bytes, 0, None, throttle).into_iter().enumerate() {
            if rounds.len() <= k {
                rounds.push(RoundTraffic { group_bytes: vec![vec![0; groups]; groups], max_node_send: 0, max_node_recv: 0 });
                sent.push(vec![0; nodes]);
                received.push(vec![0; nodes]);
            }
            let a = node_of[r as usize] as usize;
            for (peer, b) in round.sends {
                let z = node_of[peer as usize] as usize;
                if z == a {
                    continue;
                }
                rounds[k].group_bytes[group_of_node[a] as usize][group_of_node[z] as usize] += b;
                sent[k][a] += b;
                received[k][z] += b;
            }
        }
    }
    for (k, round) in rounds.iter_mut().enumerate() {
        round.max_node_send = sent[k].iter().copied().max().unwrap_or(0);
        round.max_node_recv = received[k].iter().copied().max().unwrap_or(0);
    }
    Ok(rounds)
}

/// [`round_traffic`] from JSON: `{"collective": "alltoall", "algorithm":
/// "auto", "bytes": 32768, "node_of": [...], "group_of_node": [...]}`; the
/// answer names the algorithm `auto` resolved to and lists the rounds.
pub fn round_traffic_json(text: &str) -> Result<Value> {
    let v: Value = serde_json::from_str(text).map_err(|e| ConfigError::new("round_traffic", e.to_string()))?;
    let field = |k: &str| v.get(k).ok_or_else(|| ConfigError::new(k, format!("missing; round_traffic needs {k}")));
    let kind: Collective = serde_json::from_value(field("collective")?.clone())
        .map_err(|e| ConfigError::new("collective", e.to_string()))?;
    let alg = Algorithm::parse("algorithm", kind, v.get("algorithm").and_then(Value::as_str).unwrap_or("auto"))?;
    let bytes = field("bytes")?.as_u64().ok_or_else(|| ConfigError::new("bytes", "must be a whole number of bytes"))?;
    let list = |k: &str| -> Result<Vec<u32>> {
        serde_json::from_value(field(k)?.clone()).map_err(|e| ConfigError::new(k, format!("a list of indices: {e}")))
    };
    let (node_of, group_of_node) = (list("node_of")?, list("group_of_node")?);
    let throttle = match v.get("throttle") {
        None => super::collectives::ALLTOALL_THROTTLE,
        Some(t) => t.as_u64().and_then(|t| u32::try_from(t).ok())
            .ok_or_else(|| ConfigError::new("throttle", format!("{t} is not a whole number of peers (0 to {}; 0 posts every peer at once)", u32::MAX)))?,
    };
    let rounds = round_traffic(kind, alg, bytes, &node_of, &group_of_node, throttle)?;
    let resolved = super::collectives::resolve(kind, alg, bytes, node_of.len() as u32);
    Ok(json!({
        "algorithm": format!("{resolved:?}"),
        "rounds": rounds.iter().map(|r| json!({
            "group_bytes": r.group_bytes, "max_node_send": r.max_node_send, "max_node_recv": r.max_node_recv,
        })).collect::<Vec<_>>(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::collectives::ALLTOALL_THROTTLE;

    /// A scattered alltoall of 64 ranks, one per node, 8 per group in node
    /// order: the first block of 31 peers sends each rank's bytes to the
    /// 31 ranks below it, so a group's ranks reach their own group and the
    /// three below; every byte of the alltoall is counted once.
    #[test]
    fn scattered_alltoall_by_group() {
        let node_of: Vec<u32> = (0..64).collect();
        let group_of_node: Vec<u32> = (0..64).map(|n| n / 8).collect();
        let rounds = round_traffic(Collective::Alltoall, Algorithm::Auto, 1024, &node_of, &group_of_node, ALLTOALL_THROTTLE).unwrap();
        assert_eq!(rounds.len(), 2, "64 peers in blocks of 32");
        let total: u64 = rounds.iter().flat_map(|r| r.group_bytes.iter().flatten()).sum();
        assert_eq!(total, 64 * 63 * 1024);
        assert_eq!(rounds[0].max_node_send, 31 * 1024);
        assert_eq!(rounds[1].max_node_recv, 32 * 1024);
        let reached: Vec<usize> = (0..8).filter(|&h| rounds[0].group_bytes[4][h] > 0).collect();
        assert_eq!(reached, vec![0, 1, 2, 3, 4]);
    }

    /// Ranks of one node exchange through memory: none of their bytes count.
    #[test]
    fn same_node_traffic_is_left_out() {
        let rounds = round_traffic(Collective::Alltoall, Algorithm::Auto, 4096, &[0, 0, 0, 0], &[0], ALLTOALL_THROTTLE).unwrap();
        assert!(rounds.iter().all(|r| r.max_node_send == 0 && r.group_bytes[0][0] == 0));
    }

    #[test]
    fn json_names_the_algorithm_and_refuses_a_bad_node() {
        let ok = round_traffic_json(r#"{"collective":"alltoall","bytes":64,"node_of":[0,1,2,3],"group_of_node":[0,0,1,1]}"#).unwrap();
        assert_eq!(ok["algorithm"], "Bruck");
        let err = round_traffic_json(r#"{"collective":"alltoall","bytes":64,"node_of":[0,5],"group_of_node":[0,1]}"#).unwrap_err();
        assert!(err.to_string().contains("node 5"), "{err}");
        // The throttle cuts the scattered alltoall's blocks: 0 gives one.
        let req = |t: &str| format!(r#"{{"collective":"alltoall","bytes":1024,"node_of":[0,1,2,3,4],"group_of_node":[0,0,1,1,2]{t}}}"#);
        let rounds = |t: &str| round_traffic_json(&req(t)).unwrap()["rounds"].as_array().unwrap().len();
        assert_eq!((rounds(""), rounds(r#","throttle":2"#), rounds(r#","throttle":0"#)), (1, 3, 1));
        let err = round_traffic_json(&req(r#","throttle":-1"#)).unwrap_err();
        assert!(err.to_string().contains("throttle"), "{err}");
    }
}
