//! Thin PyO3 binding of slingsim-core: the compiled module `slingsim._core`.
//! Configs cross as JSON text; engine errors become `slingsim.ConfigError`
//! (or the matching `OSError` when a file could not be read) here, in one
//! place (`engine_error`). Long calls release the GIL so Dask threads run in
//! parallel.

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use slingsim_core::table::{Column, Table};
use slingsim_core::units::{ns_to_ps, ps_to_ns, Ps};
use slingsim_core::ConfigError;
use slingsim_core::ids::NodeId;

/// Maps an engine error to the Python exception a user can act on: the
/// `OSError` subclass of the OS error it carries (a trace file that does not
/// exist is a `FileNotFoundError`), else `slingsim.ConfigError` with the
/// offending field in its `field` attribute.
fn engine_error(e: ConfigError) -> PyErr {
    let text = e.to_string();
    Python::attach(|py| {
        if let Some(errno) = os_error_number(&e.message) {
            return PyOSError::new_err((errno, text));
        }
        let made = py
            .import("slingsim.config")
            .and_then(|module| module.getattr("ConfigError"))
            .and_then(|class| class.call1((text.clone(),)))
            .and_then(|error| error.setattr("field", e.field.as_str()).map(|_| error));
        match made {
            Ok(error) => PyErr::from_value(error),
            Err(_) => PyValueError::new_err(text),
        }
    })
}

/// The errno of an OS error quoted in a message: Rust writes I/O errors as
/// "No such file or directory (os error 2)".
fn os_error_number(message: &str) -> Option<i32> {
    let start = message.rfind("(os error ")? + "(os error ".len();
    let end = start + message[start..].find(')')?;
    message[start..end].parse().ok()
}

/// `path` if it exists, else `FileNotFoundError` (errno ENOENT) naming it.
fn existing_path(path: &str) -> PyResult<std::path::PathBuf> {
    let p = std::path::PathBuf::from(path);
    if p.exists() {
        Ok(p)
    } else {
        Err(PyOSError::new_err((2, format!("{path}: no such file or directory"), path.to_owned())))
    }
}

/// Converts an engine table to a dict of column name -> values: numbers
/// as an `array.array` (typecode `q` for integers, `d` for floats), made
/// from the column's bytes, so a table of a million rows costs a copy of
/// its data and no Python object per value; strings as a list sharing one
/// object per distinct string; booleans and unsigned columns holding
/// values of 2^63 or more as lists.
/// Each column is dropped once converted, so the engine's copy and the
/// Python one of a large table do not both stay whole.
fn table_to_dict<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let array = py.import("array")?.getattr("array")?;
    // An array.array of typecode `code` from 8-byte values, written straight into the bytes it reads.
    let numbers = |code: &str, n: usize, bytes: &dyn Fn(usize) -> [u8; 8]| {
        let raw = PyBytes::new_with(py, n * 8, |buf| {
            for (i, slot) in buf.chunks_exact_mut(8).enumerate() {
                slot.copy_from_slice(&bytes(i));
            }
            Ok(())
        })?;
        array.call1((code, raw))
    };
    for (name, col) in t.columns {
        let name = name.as_str();
        match col {
            Column::U64(v) if v.iter().all(|&x| x <= i64::MAX as u64) => {
                d.set_item(name, numbers("q", v.len(), &|i| (v[i] as i64).to_ne_bytes())?)?
            }
            Column::U64(v) => d.set_item(name, v)?,
            Column::I64(v) => d.set_item(name, numbers("q", v.len(), &|i| v[i].to_ne_bytes())?)?,
            Column::F64(v) => d.set_item(name, numbers("d", v.len(), &|i| v[i].to_ne_bytes())?)?,
            Column::Bool(v) => d.set_item(name, v)?,
            Column::Str(v) => d.set_item(name, shared_strings(py, &v)?)?,
        }
    }
    Ok(d)
}

/// A list of strings in which equal strings are one Python object: the
/// links table's `kind` has a handful of values over millions of rows.
fn shared_strings<'py>(py: Python<'py>, v: &[String]) -> PyResult<Bound<'py, PyList>> {
    let mut made: std::collections::HashMap<&str, Bound<'py, PyString>> = std::collections::HashMap::new();
    let items = v.iter().map(|x| made.entry(x.as_str()).or_insert_with(|| PyString::new(py, x)).clone());
    PyList::new(py, items.collect::<Vec<_>>())
}

/// Version of the engine crate.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Git commit the module was built from (`-dirty` if the tree had
/// uncommitted changes then), or `unknown` outside a git checkout.
#[pyfunction]
fn build_commit() -> &'static str {
    env!("SLINGSIM_BUILD_COMMIT")
}

/// The config (JSON text) with every default the engine fills in written
/// out, as JSON text; building a simulation from it gives the same run.
#[pyfunction]
fn resolved_config(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    py.detach(move || slingsim_core::Config::from_json(&text).map(|c| c.resolved().to_string())).map_err(engine_error)
}

/// Bytes the engine keeps per packet in flight.
#[pyfunction]
fn packet_record_bytes() -> usize {
    slingsim_core::packet::RECORD_BYTES
}

/// Wall-clock time a run goes on without the GIL before Python's signal
/// handlers get a look (Ctrl-C, a KeyboardInterrupt from another thread).
const SLICE: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `sim` to simulated time `t` (ps) in slices, each without the GIL,
/// checking for Python signals between them: Ctrl-C stops any run within a
/// fraction of a second, with a KeyboardInterrupt. Returns whether the run
/// has ended.
fn run_interruptibly(py: Python<'_>, sim: &mut slingsim_core::Simulation, t: Ps) -> PyResult<bool> {
    loop {
        match py.detach(|| sim.run_slice(t, Some(SLICE))) {
            slingsim_core::Slice::Ended => return Ok(true),
            slingsim_core::Slice::Reached => return Ok(false),
            slingsim_core::Slice::Paused => py.check_signals()?,
        }
    }
}

/// Builds the topology of a config and returns its analytics as JSON text.
#[pyfunction]
fn topology_analytics(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    let v = py.detach(move || slingsim_core::topology::analytics::analyze_json(&text)).map_err(engine_error)?;
    Ok(v.to_string())
}

/// Bytes each round of a collective moves between groups and through
/// nodes (`slingsim_core::mpi::round_traffic`), as JSON text.
#[pyfunction]
fn collective_round_traffic(py: Python<'_>, request_json: &str) -> PyResult<String> {
    let text = request_json.to_owned();
    let v = py.detach(move || slingsim_core::mpi::round_traffic::round_traffic_json(&text)).map_err(engine_error)?;
    Ok(v.to_string())
}

/// Proves every routing algorithm deadlock free on the topology of a config
/// (or returns a dependency cycle), as JSON text.
#[pyfunction]
fn check_deadlock(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    let v = py.detach(move || slingsim_core::routing::deadlock::check_config_json(&text)).map_err(engine_error)?;
    Ok(v.to_string())
}

/// The topology of a config as a GraphML document.
#[pyfunction]
fn topology_graphml(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let text = config_json.to_owned();
    py.detach(move || slingsim_core::topology::graphml::graphml_json(&text)).map_err(engine_error)
}

/// Reads a DUMPI trace (its `.meta` file or the directory holding it) and
/// returns its MPI program (`mpi::Program`) as JSON text.
#[pyfunction]
fn read_dumpi(py: Python<'_>, path: &str) -> PyResult<String> {
    let path = existing_path(path)?;
    py.detach(move || slingsim_core::trace::dumpi_program_json(&path)).map_err(engine_error)
}

/// Summary of a program (JSON text) as JSON text; `calls_json`, an object
/// of MPI call name -> count, gives the traced run's calls when known.
#[pyfunction]
#[pyo3(signature = (program_json, calls_json=None))]
fn program_info(program_json: &str, calls_json: Option<&str>) -> PyResult<String> {
    let v = slingsim_core::trace::info::program_info_json(program_json, calls_json).map_err(engine_error)?;
    Ok(v.to_string())
}

/// Summary of a DUMPI trace as JSON text, with the trace's own call counts.
#[pyfunction]
fn dumpi_info(py: Python<'_>, path: &str) -> PyResult<String> {
    let path = existing_path(path)?;
    let v = py.detach(move || slingsim_core::trace::dumpi_info_json(&path)).map_err(engine_error)?;
    Ok(v.to_string())
}

/// Writes a program (JSON text) as the DUMPI trace `dir/PREFIX.meta` with
/// one `PREFIX-NNNN.bin` per rank; returns {meta, calls, left_out} as JSON text.
#[pyfunction]
fn write_dumpi(py: Python<'_>, program_json: &str, dir: &str, prefix: &str) -> PyResult<String> {
    let (text, dir, prefix) = (program_json.to_owned(), std::path::PathBuf::from(dir), prefix.to_owned());
    let v = py.detach(move || slingsim_core::trace::write_dumpi_json(&text, &dir, &prefix)).map_err(engine_error)?;
    Ok(v.to_string())
}

/// The program a `[[job]]` table (JSON text) running a named workload gets
/// on `ranks` ranks in a run of master seed `seed`, as JSON text.
#[pyfunction]
fn generate_program(py: Python<'_>, job_json: &str, ranks: u32, seed: u64) -> PyResult<String> {
    let text = job_json.to_owned();
    py.detach(move || slingsim_core::mpi::build::generated_program_json(&text, ranks, seed)).map_err(engine_error)
}

/// One simulation, built from a resolved config (JSON text).
#[pyclass(module = "slingsim._core")]
struct Simulation {
    inner: slingsim_core::Simulation,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(py: Python<'_>, config_json: &str) -> PyResult<Simulation> {
        let text = config_json.to_owned();
        let inner = py.detach(move || slingsim_core::Simulation::from_json(&text)).map_err(engine_error)?;
        Ok(Simulation { inner })
    }

    /// Current simulated time in ns.
    #[getter]
    fn now_ns(&self) -> f64 {
        ps_to_ns(self.inner.now())
    }

    /// Simulated time at which the run ends at the latest, in ns.
    #[getter]
    fn end_ns(&self) -> f64 {
        ps_to_ns(self.inner.end_time())
    }

    /// True once the run has ended.
    #[getter]
    fn finished(&self) -> bool {
        self.inner.finished()
    }

    /// Advances to simulated time t_ns (GIL released). True once the run has ended.
    fn run_until(&mut self, py: Python<'_>, t_ns: f64) -> PyResult<bool> {
        let t = ns_to_ps(t_ns.max(0.0));
        run_interruptibly(py, &mut self.inner, t)
    }

    /// Runs to the end (GIL released).
    fn run(&mut self, py: Python<'_>) -> PyResult<()> {
        run_interruptibly(py, &mut self.inner, Ps::MAX).map(|_| ())
    }

    /// Summary of the run as JSON text.
    fn summary_json(&self) -> String {
        self.inner.summary().to_string()
    }

    /// Sampled delivered packets, column name -> values.
    fn packets_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.packets_table())
    }

    /// One row per unidirectional link, column name -> values.
    fn links_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.links_table())
    }

    /// NIC counters per node (paper 004 Sec. 2.3), column name -> values;
    /// readable between steps of a run.
    fn nic_counters_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.nic_counters_table())
    }

    /// Delivered throughput and latency per source and time bin, column name -> values.
    fn timeline_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.timeline_table())
    }

    /// Every link's counters at each time `sim.link_snapshots_ns` names
    /// that the run reached (t_ns, channel, bytes, stalled_ns), column name -> values.
    fn link_snapshots_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.link_snapshots_table())
    }

    /// One row per job iteration (job, iteration, time_ns), column name -> values.
    fn iterations_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.iterations_table())
    }

    /// Sends one message now from node src to node dst; routing and
    /// traffic_class choose the mode and class for this message alone.
    /// Returns its flow id.
    #[pyo3(signature = (src, dst, nbytes, source=None, routing=None, traffic_class=None))]
    fn send_message(&mut self, src: u32, dst: u32, nbytes: u64, source: Option<&str>, routing: Option<&str>, traffic_class: Option<&str>) -> PyResult<u32> {
        self.inner.send_message(NodeId(src), NodeId(dst), nbytes, source, routing, traffic_class).map_err(engine_error)
    }

    /// Completion time (ns) of a flow or sent message, None while under way.
    fn flow_end_ns(&self, flow: u32) -> Option<f64> {
        self.inner.flow_end(flow).map(ps_to_ns)
    }

    /// Bytes a flow or sent message lost (None: no such flow).
    fn flow_lost_bytes(&self, flow: u32) -> Option<u64> {
        self.inner.flow_lost_bytes(flow)
    }

    /// One row per fixed-size flow, column name -> values.
    fn flows_table<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, self.inner.flows_table())
    }
}

/// The compiled engine module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build_commit, m)?)?;
    m.add_function(wrap_pyfunction!(packet_record_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(resolved_config, m)?)?;
    m.add_function(wrap_pyfunction!(topology_analytics, m)?)?;
    m.add_function(wrap_pyfunction!(check_deadlock, m)?)?;
    m.add_function(wrap_pyfunction!(topology_graphml, m)?)?;
    m.add_function(wrap_pyfunction!(read_dumpi, m)?)?;
    m.add_function(wrap_pyfunction!(program_info, m)?)?;
    m.add_function(wrap_pyfunction!(dumpi_info, m)?)?;
    m.add_function(wrap_pyfunction!(write_dumpi, m)?)?;
    m.add_function(wrap_pyfunction!(generate_program, m)?)?;
    m.add_function(wrap_pyfunction!(collective_round_traffic, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
