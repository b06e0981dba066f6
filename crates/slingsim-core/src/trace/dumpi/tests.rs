//! The reader against the reference tool: rank 0 of SST dumpi's test trace
//! field by field against `testtrace-0000.txt` (dumpi2ascii's rendering),
//! call counts against `callcounts-single.txt`, and corrupt files.

use super::*;
use crate::trace::sample_trace;

fn time(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// How dumpi2ascii prints an argument's value (without the trailing name of
/// a predefined constant).
fn rendered(arg: &Arg) -> String {
    match arg {
        Arg::Int(v) => v.to_string(),
        Arg::Op(v) | Arg::Byte(v) => v.to_string(),
        Arg::Datatype(d) => d.id.to_string(),
        Arg::Comm(v) | Arg::Group(v) | Arg::Handle(v) => v.to_string(),
        Arg::Request(v) => format!("[{v}]"),
        Arg::Statuses(None) => "<IGNORED>".into(),
        Arg::Statuses(Some(s)) if s.is_empty() => "<IGNORED>".into(),
        Arg::Statuses(Some(s)) => format!(
            "[{}]",
            s.iter()
                .map(|s| format!("{{bytes={}, cancelled={}, source={}, tag={}, error={}}}", s.bytes, s.cancelled, s.source, s.tag, s.error))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Arg::Texts(v) => format!("[{}]", v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")),
        other => format!("{other:?}"),
    }
}

/// One call as the text rendering shows it.
struct OracleCall {
    name: String,
    wall: (String, String),
    cpu: (String, String),
    thread: u16,
    args: Vec<(String, String)>,
}

fn oracle_calls(text: &str) -> Vec<OracleCall> {
    let mut calls = Vec::new();
    let mut open: Option<OracleCall> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 11 && words[1] == "entering" {
            let thread = words[10].trim_end_matches('.').parse().unwrap();
            let (wall, cpu) = (words[4].trim_end_matches(','), words[6]);
            open = Some(OracleCall { name: words[0].into(), wall: (wall.into(), String::new()), cpu: (cpu.into(), String::new()), thread, args: vec![] });
        } else if words.len() >= 11 && words[1] == "returning" {
            let mut call = open.take().expect("returning without entering");
            assert_eq!(call.name, words[0]);
            call.wall.1 = words[4].trim_end_matches(',').into();
            call.cpu.1 = words[6].into();
            calls.push(call);
        } else if let Some(call) = open.as_mut() {
            // "TYPE NAME=VALUE[ (CONSTANT)]"; argv shows as "string argv[1]=[...]".
            let (_, rest) = line.split_once(' ').unwrap();
            let (name, value) = rest.split_once('=').unwrap();
            let name = name.split('[').next().unwrap();
            let value = match value.find(" (") {
                Some(i) if !value.starts_with('[') => &value[..i],
                _ => value,
            };
            call.args.push((name.into(), value.into()));
        }
    }
    calls
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn rank_zero_agrees_with_dumpi2ascii_field_by_field() {
    let dir = sample_trace("dumpi-sstdumpi-testtrace");
    let trace = read_dumpi(&dir).unwrap();
    assert_eq!(trace.ranks.len(), 4);
    let rank = &trace.ranks[0];
    let text = std::fs::read_to_string(dir.join("testtrace-0000.txt")).unwrap();
    let oracle = oracle_calls(&text);
    assert_eq!(rank.calls.iter().map(|c| c.name).collect::<Vec<_>>(), oracle.iter().map(|c| c.name.as_str()).collect::<Vec<_>>());
    for (call, want) in rank.calls.iter().zip(&oracle) {
        let wall = call.wall.unwrap();
        let cpu = call.cpu.unwrap();
        assert_eq!((time(wall.start_ns), time(wall.stop_ns)), want.wall, "{} wall times", call.name);
        assert_eq!((time(cpu.start_ns), time(cpu.stop_ns)), want.cpu, "{} cpu times", call.name);
        assert_eq!(call.thread, Some(want.thread));
        for (name, value) in &want.args {
            let got = if name == "argc" {
                match call.arg("argv") {
                    Some(Arg::Texts(v)) => v.len().to_string(),
                    other => panic!("argv {other:?}"),
                }
            } else {
                rendered(call.arg(name).unwrap_or_else(|| panic!("{} has no argument {name}", call.name)))
            };
            assert_eq!(&got, value, "{} argument {name}", call.name);
        }
        assert_eq!(call.args.len(), want.args.len() - usize::from(call.name == "MPI_Init"), "{} argument count", call.name);
    }
    // The point-to-point and collective arguments, spelled out.
    let isend = &rank.calls[4];
    assert_eq!((isend.int("count"), isend.int("dest"), isend.int("tag"), isend.comm("comm"), isend.request("request")), (Some(1), Some(1), Some(1337), Some(2), Some(2)));
    assert_eq!(isend.datatype("datatype"), Some(Datatype { id: 9, size: Some(4) }));
    let recv = &rank.calls[5];
    assert_eq!((recv.int("source"), recv.int("tag"), recv.statuses("status")), (Some(3), Some(1337), Some(&[][..])));
    let wait = &rank.calls[6];
    assert_eq!(wait.statuses("status").unwrap()[0], Status { bytes: 1606419960, source: 9, cancelled: 0, error: 96, tag: 9 });
    let allreduce = &rank.calls[7];
    assert_eq!((allreduce.int("count"), allreduce.arg("op"), allreduce.comm("comm")), (Some(1), Some(&Arg::Op(3)), Some(2)));
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn header_footer_and_datatype_sizes_agree_with_dumpi2ascii() {
    let dir = sample_trace("dumpi-sstdumpi-testtrace");
    let rank = read_rank_file(&dir.join("testtrace-0000.bin")).unwrap();
    let text = std::fs::read_to_string(dir.join("testtrace-0000.txt")).unwrap();
    assert!(text.contains(&format!("hostname={}\n", rank.header.hostname)));
    assert!(text.contains(&format!("username={}\n", rank.header.username)));
    let v = rank.header.version;
    assert!(text.contains(&format!("version={}.{}.{}\n", v[0], v[1], v[2])));
    assert_eq!(rank.header.start_time, 1296777956);
    let mut counted = 0;
    for line in text.lines().filter(|l| l.contains(" called ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let id = names::call_id(w[0]).map(usize::from).unwrap_or(names::CALL_COUNT);
        assert_eq!((rank.footer.called[id].to_string(), rank.footer.ignored[id].to_string()), (w[2].to_string(), w[6].to_string()), "{}", w[0]);
        counted += 1;
    }
    assert_eq!(counted, names::CALL_COUNT + 1);
    for line in text.lines().filter(|l| l.starts_with("Datatype ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let id: usize = w[1].parse().unwrap();
        assert_eq!(rank.datatype_sizes[id].to_string(), w[5], "{line}");
    }
    assert_eq!(rank.datatype_sizes.len(), 28);
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn record_counts_agree_with_the_reference_call_counts() {
    let dir = sample_trace("dumpi-sstdumpi-testtrace");
    let rank = read_rank_file(&dir.join("testtrace-0000.bin")).unwrap();
    let text = std::fs::read_to_string(dir.join("callcounts-single.txt")).unwrap();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w[0] == "MPI_ALL_FUNCTIONS" {
            continue;
        }
        let recorded = rank.calls.iter().filter(|c| c.name == w[0]).count();
        assert_eq!(recorded.to_string(), w[2], "{}", w[0]);
    }
}

#[test]
fn every_sample_trace_reads_to_its_end_mark() {
    for (name, ranks, calls) in [("dumpi-stencil3d-np8", 8, 163), ("dumpi-stencil3d-np16", 16, 723), ("dumpi-nbc-np4", 4, 6)] {
        let dir = sample_trace(name);
        let trace = read_dumpi(&dir).unwrap();
        assert_eq!(trace.ranks.len(), ranks, "{name}");
        for rank in &trace.ranks {
            assert_eq!(rank.calls.len(), calls, "{name}");
            // Every recorded call is counted in the footer.
            for id in 0..names::CALL_COUNT {
                let recorded = rank.calls.iter().filter(|c| c.id as usize == id).count() as u32;
                assert_eq!(recorded, rank.footer.called[id] - rank.footer.ignored[id], "{name} call {id}");
            }
        }
    }
}

#[test]
fn statuses_off_and_wall_times_only_are_read_as_such() {
    let dir = sample_trace("dumpi-stencil3d-np16");
    let trace = read_dumpi(&dir).unwrap();
    let recv = trace.ranks[0].calls.iter().find(|c| c.name == "MPI_Recv").unwrap();
    assert_eq!(recv.arg("status"), Some(&Arg::Statuses(None)));
    assert!(recv.cpu.is_none() && recv.wall.is_some());
}

fn scratch_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("slingsim-dumpi-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies the test trace to a scratch directory with rank 0's file changed by `edit`.
fn damaged_copy(tag: &str, edit: impl Fn(&mut Vec<u8>)) -> Option<std::path::PathBuf> {
    let src = sample_trace("dumpi-sstdumpi-testtrace");
    let dir = scratch_dir(tag);
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let mut bytes = std::fs::read(&path).unwrap();
        if path.file_name().unwrap() == "testtrace-0000.bin" {
            edit(&mut bytes);
        }
        std::fs::write(dir.join(path.file_name().unwrap()), bytes).unwrap();
    }
    Some(dir)
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn a_truncated_file_names_itself_and_the_offset() {
    let Some(dir) = damaged_copy("truncated", |b| b.truncate(1000)) else { return };
    let e = read_dumpi(&dir).unwrap_err();
    assert!(e.field.ends_with("testtrace-0000.bin"), "{e}");
    assert!(e.message.starts_with("byte offset 1000:") && e.message.contains("truncated"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn a_flipped_byte_names_the_file_and_offset() {
    // The first record (MPI_Init) starts at offset 16: corrupt its call id.
    let Some(dir) = damaged_copy("flipped", |b| b[16] ^= 0xff) else { return };
    let e = read_dumpi(&dir).unwrap_err();
    assert!(e.field.ends_with("testtrace-0000.bin"), "{e}");
    assert!(e.message.starts_with("byte offset 16: unknown call id 65404"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
    // MPI_Init's argc (offset 45) claiming more strings than the file holds.
    let Some(dir) = damaged_copy("count", |b| b[0x2d] = 0x7f) else { return };
    let e = read_dumpi(&dir).unwrap_err();
    assert!(e.message.starts_with("byte offset 45: MPI_Init argument `argv` count"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_single_byte_flip_makes_the_reader_panic() {
    let dir = sample_trace("dumpi-stencil3d-np8");
    let path = dir.join("dumpi-2026.11.22.02.43.02-0000.bin");
    let data = std::fs::read(&path).unwrap();
    for at in 0..data.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bytes = data.clone();
            bytes[at] ^= flip;
            if let Err(e) = parse_rank_bytes(&path, &bytes) {
                assert!(e.message.starts_with("byte offset "), "{e}");
            }
        }
    }
}

#[test]
#[ignore = "reads the BG/P trace in ../shared/traces (scripts/test runs it when present)"]
fn the_bgp_trace_reads_to_its_end_mark() {
    let trace = read_dumpi(&sample_trace("dumpi-bgp-np7")).unwrap();
    assert_eq!(trace.ranks.len(), 7);
    assert!(trace.ranks.iter().all(|r| r.calls.len() == 227));
}
