//! The resolved config: the config as the engine reads it, every default
//! filled in, so a result can say exactly what produced it and a run can be
//! re-made from that record alone.
//!
//! The engine declares its defaults once (`slingsim_core::config`) but its
//! config types are not `Serialize`. Here the parsed config is rendered with
//! `Debug` and read back as JSON (`debug_value`), the user's own values are
//! laid over it unchanged (so names, inline programs and numbers stay as
//! given), and the result is checked to parse back into the very config the
//! engine would have built. A config type this cannot render faithfully is
//! an error, never a silently different config.

use crate::debug_value;
use serde_json::Value;
use slingsim_core::config::Config;
use slingsim_core::topology::aries;
use slingsim_core::ConfigError;

/// `[topology]` keys each family reads. This mirrors the engine's private
/// list (`topology::family_keys`): a key listed here that the engine does
/// not accept would fail every run built from a resolved config, which the
/// Python tests run for every family.
fn family_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "dragonfly" => &[
            "kind", "groups", "switches_per_group", "endpoints_per_switch", "local_links_per_pair", "global_ports_per_switch",
            "global_links_per_group_pair", "taper", "arrangement", "radix", "nodes", "rails",
        ],
        "slimfly" => &["kind", "q", "endpoints_per_switch", "radix", "nodes", "rails"],
        "fitfly" => &["kind", "q", "planes", "endpoints_per_switch", "radix", "nodes", "rails"],
        "megafly" => &[
            "kind", "groups", "leaves_per_group", "spines_per_group", "endpoints_per_switch", "global_ports_per_switch",
            "global_links_per_group_pair", "arrangement", "radix", "nodes", "rails",
        ],
        "fattree" => &["kind", "radix", "taper", "nodes", "rails"],
        "aries" => &[
            "kind", "groups", "rows", "columns", "row_links", "column_links", "endpoints_per_switch", "global_ports_per_switch",
            "global_links_per_group_pair", "radix", "nodes", "rails",
        ],
        _ => &[],
    }
}

/// The config of `text` (JSON) with every default filled in, as JSON text.
pub fn resolved_config_json(text: &str) -> Result<String, ConfigError> {
    let raw: Value = serde_json::from_str(text).map_err(|e| ConfigError::new("", format!("config is not JSON: {e}")))?;
    let parsed = Config::from_json(text)?;
    let mut resolved = defaults_of(&parsed)?;
    lay_over(&mut resolved, &raw);
    name_unit_nones(&mut resolved);
    let out = serde_json::to_string(&resolved).map_err(|e| internal(e.to_string()))?;
    let again = Config::from_json(&out)?;
    if comparable(&again) != comparable(&parsed) {
        return Err(internal("the resolved config does not parse back into the same config".into()));
    }
    Ok(out)
}

/// Every field of the parsed config as JSON: the `[topology]` keys of its
/// family only, with the family's own defaults (Aries), and inline programs
/// left out (the user's are laid back over them verbatim).
fn defaults_of(parsed: &Config) -> Result<Value, ConfigError> {
    let mut cfg = parsed.clone();
    for job in &mut cfg.job {
        job.program = None;
    }
    if cfg.topology.kind == "aries" {
        cfg.topology = aries::with_defaults(&cfg.topology, &cfg.topology_keys);
    }
    cfg.topology_keys.clear();
    let mut value = debug_value::parse(&format!("{cfg:?}")).map_err(internal)?;
    let top = value.as_object_mut().ok_or_else(|| internal("the config is not a table".into()))?;
    top.shift_remove("topology_keys");
    let keys = family_keys(&cfg.topology.kind);
    if let Some(Value::Object(topology)) = top.get_mut("topology") {
        topology.retain(|key, _| keys.contains(&key.as_str()));
    }
    Ok(value)
}

/// Replaces each `null` that stands for an enum variant named `None` (its
/// `Debug` is that of an empty `Option`) with `"none"`: the engine says
/// which, by refusing `null` at that field when it parses the config.
fn name_unit_nones(resolved: &mut Value) {
    for _ in 0..64 {
        let Err(e) = Config::from_json(&resolved.to_string()) else { return };
        match value_at(resolved, &e.field) {
            Some(slot) if slot.is_null() => *slot = Value::String(debug_value::kebab_case("None")),
            _ => return, // another problem: the check in resolved_config_json reports it
        }
    }
}

/// The value at a field path as the engine names it (`traffic[0].routing`).
fn value_at<'a>(value: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut node = value;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut pieces = part.split('[');
        let key = pieces.next()?;
        if !key.is_empty() {
            node = node.get_mut(key)?;
        }
        for index in pieces {
            node = node.get_mut(index.strip_suffix(']')?.parse::<usize>().ok()?)?;
        }
    }
    Some(node)
}

/// Lays `top` over `base`: tables merge key by key, lists of equal length
/// element by element (each entry keeps its defaults), anything else is
/// replaced by `top`.
fn lay_over(base: &mut Value, top: &Value) {
    match (base, top) {
        (Value::Object(b), Value::Object(t)) => {
            for (key, value) in t {
                match b.get_mut(key) {
                    Some(slot) => lay_over(slot, value),
                    None => {
                        b.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(b), Value::Array(t)) if b.len() == t.len() => {
            for (slot, value) in b.iter_mut().zip(t) {
                lay_over(slot, value);
            }
        }
        (b, t) => *b = t.clone(),
    }
}

/// What a config means to the engine, as text: the given-keys bookkeeping
/// cleared and Aries' defaults applied, so a config and its resolved form
/// compare equal exactly when they build the same simulation.
fn comparable(cfg: &Config) -> String {
    let mut cfg = cfg.clone();
    if cfg.topology.kind == "aries" {
        cfg.topology = aries::with_defaults(&cfg.topology, &cfg.topology_keys);
    }
    cfg.topology_keys.clear();
    format!("{cfg:?}")
}

fn internal(message: String) -> ConfigError {
    ConfigError::new(
        "",
        format!("internal error resolving the config's defaults ({message}); please report it with the config"),
    )
}
