//! The date of a build, and its day: when the newest of the files it is made from last
//! changed, so that a changed body never keeps an older `Last-Modified`.
//!
//! A file as committed counts from its last commit; a file that differs
//! from the committed version (edited, added, deleted, or untracked) counts
//! from its modification time (a deleted one from its directory's, which
//! the deletion set). Without git, or outside a repository, every file
//! counts from its modification time. `SOURCE_DATE_EPOCH`, read by the
//! caller, overrides all of it for reproducible builds.
//!
//! HTTP dates count whole seconds: two versions saved within the same
//! second share a date, which no `Last-Modified` can tell apart (their
//! ETags differ).

use std::path::Path;
use std::process::Command;
use std::time::UNIX_EPOCH;
use time::{Date, OffsetDateTime};

/// The day (UTC) of `unix` seconds since the Unix epoch: the sitemap's
/// `lastmod`, the feed's `updated` when it has no entry.
pub(crate) fn day(unix: u64) -> Date {
    i64::try_from(unix)
        .ok()
        .and_then(|seconds| OffsetDateTime::from_unix_timestamp(seconds).ok())
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
        .date()
}

/// The newest date, in seconds since the Unix epoch, of the files under
/// `inputs` (files or directories, relative to `root`).
pub fn newest(root: &Path, inputs: &[&str]) -> u64 {
    match changed_since_commit(root, inputs) {
        Some(changed) => {
            let committed = last_commit(root, inputs).unwrap_or(0);
            let edited = changed.iter().map(|path| modified(&root.join(path)));
            edited.fold(committed, u64::max)
        }
        None => inputs
            .iter()
            .map(|input| newest_under(&root.join(input)))
            .max()
            .unwrap_or(0),
    }
}

/// The files under `inputs` that differ from their last commit, as paths
/// relative to `root`: modified, deleted, untracked or ignored; `None`
/// when git cannot tell (no git, or no repository).
fn changed_since_commit(root: &Path, inputs: &[&str]) -> Option<Vec<String>> {
    // Paths relative to `root`, NUL-separated, in no particular order.
    let args = [
        "ls-files",
        "-z",
        "--modified",
        "--deleted",
        "--others",
        "--",
    ];
    let listed = git(root, &args, inputs)?;
    Some(
        listed
            .split('\0')
            .filter(|path| !path.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// The date of the last commit that changed a file under `inputs`.
fn last_commit(root: &Path, inputs: &[&str]) -> Option<u64> {
    git(root, &["log", "-1", "--format=%ct", "--"], inputs)?
        .trim()
        .parse()
        .ok()
}

/// What `git args inputs` prints in `root`, if it succeeds.
fn git(root: &Path, args: &[&str], inputs: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .current_dir(root)
        .args(args)
        .args(inputs)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The modification time of `path`, or of the nearest directory above it
/// that exists (a deleted file's).
fn modified(path: &Path) -> u64 {
    path.ancestors()
        .find_map(|at| std::fs::metadata(at).ok())
        .and_then(|metadata| metadata.modified().ok())
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_secs())
}

/// The newest modification time of `path` and everything under it.
fn newest_under(path: &Path) -> u64 {
    let own = modified(path);
    let Ok(entries) = std::fs::read_dir(path) else {
        return own;
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| newest_under(&entry.path()))
        .fold(own, u64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    #[test]
    fn a_unix_time_falls_on_its_day() {
        assert_eq!(day(0).to_string(), "1970-01-01");
        assert_eq!(day(951_868_800 + 86_399).to_string(), "2000-03-01");
        assert_eq!(day(1_793_491_200).to_string(), "2026-11-01");
    }

    #[test]
    fn outside_a_repository_the_newest_file_decides() {
        let dir = std::env::temp_dir().join(format!("refserve-dates-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("content/methods")).expect("mkdir");
        let old = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        for name in ["content/site.json", "content/methods/a.md"] {
            let file = std::fs::File::create(dir.join(name)).expect("create");
            file.set_modified(old).expect("set mtime");
        }
        let directories = [dir.join("content/methods"), dir.join("content")];
        for directory in &directories {
            let handle = std::fs::File::open(directory).expect("open");
            handle.set_modified(old).expect("set mtime");
        }
        assert_eq!(newest(&dir, &["content"]), 1_000_000_000);
        let edited = std::fs::File::create(dir.join("content/methods/a.md")).expect("create");
        edited
            .set_modified(old + std::time::Duration::from_secs(60))
            .expect("set mtime");
        assert_eq!(newest(&dir, &["content"]), 1_000_000_060);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
