//! Latency-critical client-server services: the Tailbench applications
//! paper 000 runs as datacenter victims (Sec. III, Table I: Silo, Xapian,
//! Img-dnn, Sphinx; Kasture and Sanchez, IISWC 2016, its ref. [47]). A
//! client sends a request, the server computes for a service time and
//! sends a response; what matters is the distribution of request latency
//! (paper 000 Fig. 8 plots it with its 95th and 99th percentiles).
//!
//! The first `servers` ranks serve; every other rank is a client of server
//! (client index mod `servers`), the client index counting from the first
//! non-server rank. Paper 000 runs each application with one client and
//! one server (Table I): a job of 2 ranks with the defaults.
//!
//! A client, for each of `iterations` requests: starts its timer, sends
//! the request, receives the response, stops the timer (so the job's
//! `timed_ns` is the request latency distribution), thinks for an
//! exponential time of mean `think_ns` (0: the next request at once), and
//! marks the iteration. A server serves its clients in a fixed round-robin
//! order, one request of each per round, receiving from each client by
//! name rather than from `ANY_SOURCE`: our programs are fixed in advance,
//! so the server must know whom it answers. A client that thinks long
//! therefore delays the others of its server (head-of-line blocking), and
//! a server's iteration is one round; iteration k ends when every client
//! has its k-th response and every server has served its k-th round.
//! Service times are lognormal with mean `service_mean_ns` and shape
//! `service_sigma`, drawn in advance from seeded random streams.
//!
//! Presets (`silo`, `xapian`, `img-dnn`, `sphinx`) only change defaults.
//! Paper 000 says they span "microseconds (Silo) to seconds (Sphinx)";
//! exact service time distributions and message sizes are in neither of
//! our papers, so the presets' values are *assumptions* of the right order
//! of magnitude after the latencies the Tailbench paper reports: Silo
//! (in-memory OLTP) 20 us, Xapian (search) 1 ms, Img-dnn (handwriting
//! recognition) 2 ms, Sphinx (speech recognition) 1.5 s; see [`profile`].

use super::{compute, Spec};
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Op, Program};
use crate::rng::Rng;

/// Parameters the service workloads take.
pub const PARAMS: &[&str] = &["service_mean_ns", "service_sigma", "request_bytes", "response_bytes", "think_ns", "servers"];

/// Tags of requests and responses.
const REQUEST: i32 = 1;
const RESPONSE: i32 = 2;

/// Random streams of the service times (one per server) and think times
/// (one per client).
const SERVICE_STREAM: u64 = 0x5E4_7000_0000;
const THINK_STREAM: u64 = 0x7B1_7000_0000;

/// What one request of a service costs: the defaults of its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// Mean service time (ns) and lognormal shape (sigma of its logarithm).
    pub service_mean_ns: f64,
    pub service_sigma: f64,
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Mean think time of a client between requests (ns).
    pub think_ns: f64,
}

/// Defaults of workload `name`: the generic `service` (10 us, requests
/// and responses of the job's `bytes`) or a Tailbench preset. Preset sizes
/// are assumptions too: Silo a few small records each way; Xapian a query
/// in, a page of result ids out; Img-dnn a 28 x 28 8-bit image in, a label
/// out; Sphinx about 3 s of 16 kHz 16-bit audio in, a transcript out.
pub fn profile(name: &str, job_bytes: u64) -> Option<Profile> {
    let p = |service_mean_ns, service_sigma, request_bytes, response_bytes| Profile { service_mean_ns, service_sigma, request_bytes, response_bytes, think_ns: 0.0 };
    Some(match name {
        "service" => p(10_000.0, 0.5, job_bytes, job_bytes),
        "silo" => p(20_000.0, 0.5, 64, 64),
        "xapian" => p(1_000_000.0, 0.8, 64, 1024),
        "img-dnn" => p(2_000_000.0, 0.3, 784, 8),
        "sphinx" => p(1_500_000_000.0, 0.4, 96_000, 128),
        _ => return None,
    })
}

/// A standard normal draw (Box-Muller).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.unit(); // (0, 1]
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A lognormal draw of mean `mean` and shape `sigma`: exp(mu + sigma Z)
/// with mu = ln(mean) - sigma^2 / 2.
fn lognormal(rng: &mut Rng, mean: f64, sigma: f64) -> f64 {
    if mean <= 0.0 {
        return 0.0;
    }
    (mean.ln() - sigma * sigma / 2.0 + sigma * standard_normal(rng)).exp()
}

/// An exponential draw of mean `mean`.
fn exponential(rng: &mut Rng, mean: f64) -> f64 {
    -mean * (1.0 - rng.unit()).ln()
}

/// The program of service workload `name` (see the module doc).
pub fn service(spec: &Spec, name: &str) -> Result<Program> {
    let d = profile(name, spec.bytes).ok_or_else(|| ConfigError::new(format!("{}.workload", spec.field), format!("{name:?} is not a service workload")))?;
    let mean = spec.param_f64("service_mean_ns", d.service_mean_ns)?;
    let sigma = spec.param_f64("service_sigma", d.service_sigma)?;
    let request = spec.param_f64("request_bytes", d.request_bytes as f64)?.round() as u64;
    let response = spec.param_f64("response_bytes", d.response_bytes as f64)?.round() as u64;
    let think = spec.param_f64("think_ns", d.think_ns)?;
    let servers = spec.param_u32("servers", 1)?;
    if servers == 0 || servers >= spec.ranks {
        return Err(ConfigError::new(
            format!("{}.params.servers", spec.field),
            format!("a service needs 1 <= servers < ranks, so that it has a server and a client; the job has {} ranks and {servers} servers (give it more nodes or fewer servers)", spec.ranks),
        ));
    }
    let clients = spec.ranks - servers;
    let mut p = Program::new(spec.ranks);
    for s in 0..servers {
        let mut rng = Rng::new(spec.seed, SERVICE_STREAM + s as u64);
        let mine: Vec<i32> = (s..clients).step_by(servers as usize).map(|c| (servers + c) as i32).collect();
        let ops = &mut p.ops[s as usize];
        for _ in 0..spec.iterations {
            for &client in &mine {
                ops.push(Op::Recv { comm: 0, peer: client, tag: REQUEST, bytes: request });
                let ns = lognormal(&mut rng, mean, sigma);
                compute(ops, ns);
                ops.push(Op::Send { comm: 0, peer: client, tag: RESPONSE, bytes: response });
            }
            ops.push(Op::IterationEnd);
        }
    }
    for c in 0..clients {
        let mut rng = Rng::new(spec.seed, THINK_STREAM + c as u64);
        let server = (c % servers) as i32;
        let ops = &mut p.ops[(servers + c) as usize];
        for _ in 0..spec.iterations {
            ops.extend([
                Op::TimerStart,
                Op::Send { comm: 0, peer: server, tag: REQUEST, bytes: request },
                Op::Recv { comm: 0, peer: server, tag: RESPONSE, bytes: response },
                Op::TimerStop,
            ]);
            if think > 0.0 {
                ops.push(Op::Compute { ns: exponential(&mut rng, think) });
            }
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::super::check::{self, consistent, params, Params};
    use super::*;

    fn spec(params: &Params, ranks: u32) -> Spec<'_> {
        check::spec(params, ranks, 512, 4, 0.0, 3)
    }


    #[test]
    fn every_service_is_consistent() {
        let cases = [
            ("service", 2, serde_json::json!({})),
            ("silo", 5, serde_json::json!({"think_ns": 5000.0})),
            ("xapian", 7, serde_json::json!({"servers": 2})),
            ("img-dnn", 4, serde_json::json!({"servers": 3})),
            ("sphinx", 3, serde_json::json!({})),
        ];
        for (name, ranks, json) in cases {
            let m = params(json);
            consistent(&service(&spec(&m, ranks), name).unwrap());
        }
    }

    #[test]
    fn clients_time_each_request_and_servers_serve_round_robin() {
        let m = params(serde_json::json!({"servers": 2}));
        let p = service(&spec(&m, 7), "service").unwrap();
        // Clients 0..5 are ranks 2..7; server 0 has clients 0, 2, 4.
        let peers: Vec<i32> = p.ops[0].iter().filter_map(|o| if let Op::Recv { peer, .. } = o { Some(*peer) } else { None }).take(4).collect();
        assert_eq!(peers, vec![2, 4, 6, 2]);
        assert_eq!(p.ops[3].iter().filter(|o| matches!(o, Op::TimerStop)).count(), 4);
        assert!(p.ops[3].iter().any(|o| matches!(o, Op::Send { peer: 1, bytes: 512, .. })));
        assert!(p.ops[0].iter().all(|o| !matches!(o, Op::TimerStart)));
    }

    #[test]
    fn service_times_are_seeded_lognormals_of_the_given_mean() {
        let mut rng = Rng::new(1, 2);
        let n = 50_000;
        let draws: Vec<f64> = (0..n).map(|_| lognormal(&mut rng, 1000.0, 0.5)).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean - 1000.0).abs() < 20.0, "mean {mean}");
        let below_median = draws.iter().filter(|&&x| x < 1000.0 * (-0.125f64).exp()).count() as f64 / n as f64;
        assert!((below_median - 0.5).abs() < 0.01, "{below_median}");
        let m = params(serde_json::json!({}));
        let a = service(&spec(&m, 3), "xapian").unwrap();
        assert_eq!(a, service(&spec(&m, 3), "xapian").unwrap());
        let mut other = spec(&m, 3);
        other.seed = 4;
        assert_ne!(a, service(&other, "xapian").unwrap());
    }

    #[test]
    fn presets_span_microseconds_to_seconds() {
        let mean = |n| profile(n, 8).unwrap().service_mean_ns;
        assert!(mean("silo") < 100_000.0 && mean("sphinx") >= 1e9);
        assert!(mean("silo") < mean("xapian") && mean("xapian") < mean("img-dnn") && mean("img-dnn") < mean("sphinx"));
        assert_eq!(profile("service", 300).unwrap().request_bytes, 300);
    }

    #[test]
    fn a_service_needs_a_client() {
        let m = params(serde_json::json!({}));
        assert_eq!(service(&spec(&m, 1), "silo").unwrap_err().field, "job[0].params.servers");
        let m = params(serde_json::json!({"servers": 4}));
        assert!(service(&spec(&m, 4), "silo").is_err());
    }
}
