//! The `.meta` file of a DUMPI trace: `key=value` lines naming the number of
//! ranks (`numprocs`) and the prefix of the per-rank files
//! (`fileprefix`, the files being `PREFIX-NNNN.bin` beside the `.meta`).

use std::path::{Path, PathBuf};

use crate::error::{ConfigError, Result};

/// A parsed `.meta` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Path of the `.meta` file.
    pub path: PathBuf,
    /// Every `key=value` line, in file order.
    pub entries: Vec<(String, String)>,
    /// Number of ranks (`numprocs`).
    pub ranks: u32,
    /// Prefix of the rank files (`fileprefix`).
    pub prefix: String,
}

impl Meta {
    /// The value of `key`, if the file has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Path of rank `rank`'s `.bin` file.
    pub fn rank_file(&self, rank: u32) -> PathBuf {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        dir.join(format!("{}-{:04}.bin", self.prefix, rank))
    }
}

/// The `.meta` file of a trace given as that file or as the directory holding it.
pub fn find_meta(path: &Path) -> Result<PathBuf> {
    let shown = path.display().to_string();
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    if !path.is_dir() {
        return Err(ConfigError::new(shown, "no such file or directory; give a DUMPI .meta file or the directory holding it"));
    }
    let entries = std::fs::read_dir(path).map_err(|e| ConfigError::new(&shown, format!("cannot list the directory: {e}")))?;
    let mut metas: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "meta"))
        .collect();
    metas.sort();
    match metas.len() {
        1 => Ok(metas.remove(0)),
        0 => Err(ConfigError::new(shown, "no .meta file in this directory; it does not hold a DUMPI trace")),
        _ => Err(ConfigError::new(
            shown,
            format!("{} .meta files in this directory; name the one to read: {}", metas.len(), names(&metas)),
        )),
    }
}

fn names(paths: &[PathBuf]) -> String {
    paths.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect::<Vec<_>>().join(", ")
}

/// Reads and checks a `.meta` file.
pub fn read_meta(path: &Path) -> Result<Meta> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::new(&shown, format!("cannot read the .meta file: {e}")))?;
    let entries: Vec<(String, String)> = text
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let value = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let ranks = value("numprocs")
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| ConfigError::new(&shown, "no valid numprocs=N line (the number of ranks) in the .meta file"))?;
    let prefix = value("fileprefix")
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ConfigError::new(&shown, "no fileprefix= line (the name of the rank files) in the .meta file"))?;
    let meta = Meta { path: path.to_path_buf(), entries, ranks, prefix };
    meta.check_rank_files()?;
    Ok(meta)
}

impl Meta {
    /// The rank files beside the `.meta` must be exactly ranks 0 to
    /// numprocs - 1: a `.meta` whose numprocs was lowered would otherwise
    /// read fewer ranks than the trace holds, and one raised would miss
    /// files.
    fn check_rank_files(&self) -> Result<()> {
        let shown = self.path.display().to_string();
        if let Some(missing) = (0..self.ranks).find(|&r| !self.rank_file(r).is_file()) {
            return Err(ConfigError::new(
                &shown,
                format!("numprocs={} but rank {missing}'s file {} is missing", self.ranks, self.rank_file(missing).display()),
            ));
        }
        if self.rank_file(self.ranks).is_file() {
            let mut extra = self.ranks;
            while self.rank_file(extra + 1).is_file() {
                extra += 1;
            }
            return Err(ConfigError::new(
                &shown,
                format!(
                    "numprocs={} but rank files run to {} ({}): the .meta file does not describe this trace; set numprocs={}",
                    self.ranks,
                    extra,
                    self.rank_file(extra).display(),
                    extra + 1
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_names_the_rank_files() {
        let dir = std::env::temp_dir().join(format!("slingsim-meta-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.meta");
        std::fs::write(&path, "hostname=vm\nnumprocs=4\nfileprefix=run-1\n").unwrap();
        for r in 0..4 {
            std::fs::write(dir.join(format!("run-1-{r:04}.bin")), b"").unwrap();
        }
        let meta = read_meta(&find_meta(&dir).unwrap()).unwrap();
        assert_eq!(meta.ranks, 4);
        assert_eq!(meta.get("hostname"), Some("vm"));
        assert_eq!(meta.rank_file(3), dir.join("run-1-0003.bin"));
        // A lowered numprocs would read fewer ranks than the trace holds.
        std::fs::write(&path, "numprocs=3\nfileprefix=run-1\n").unwrap();
        let e = read_meta(&path).unwrap_err();
        assert!(e.message.contains("set numprocs=4"), "{e}");
        // A raised one misses a file.
        std::fs::write(&path, "numprocs=5\nfileprefix=run-1\n").unwrap();
        assert!(read_meta(&path).unwrap_err().message.contains("rank 4's file"));
        std::fs::write(&path, "numprocs=four\n").unwrap();
        assert!(read_meta(&path).unwrap_err().message.contains("numprocs"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
