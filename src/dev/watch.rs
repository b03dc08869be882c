//! Watching the content directory: file events that may change what
//! renders, settled, and the render they start; editors' own files are
//! passed over.

use crate::Preview;
use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long an edit's file events must be quiet before it is rendered.
const SETTLE: Duration = Duration::from_millis(50);

/// How often `--poll` looks at the files.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// Render again once the changes have settled (no change for
/// [`SETTLE`]); editors' own files change nothing.
pub(crate) async fn rerender(
    preview: Arc<Preview>,
    mut changes: mpsc::UnboundedReceiver<Vec<PathBuf>>,
) {
    while let Some(mut changed) = changes.recv().await {
        loop {
            match tokio::time::timeout(SETTLE, changes.recv()).await {
                Ok(Some(more)) => changed.extend(more),
                Ok(None) => return,
                Err(_settled) => break,
            }
        }
        changed.retain(|path| !is_editor_file(path));
        changed.sort();
        changed.dedup();
        if changed.is_empty() {
            continue;
        }
        // Named by the content files among them (not the temporary files
        // of a rename-style save, gone by now), or all if there are none.
        let is_content =
            |path: &&PathBuf| path.extension().is_some_and(|e| e == "md" || e == "json");
        let any_content = changed.iter().any(|path| is_content(&path));
        // Events name files by absolute paths; the log, within the directory.
        let content = preview.root.join(&preview.dir);
        let names: Vec<String> = changed
            .iter()
            .filter(|path| !any_content || is_content(path))
            .map(|path| {
                path.strip_prefix(&content)
                    .unwrap_or(path)
                    .display()
                    .to_string()
            })
            .collect();
        let rendering = Arc::clone(&preview);
        let started = Instant::now();
        let Ok(outcome) = tokio::task::spawn_blocking(move || rendering.render()).await else {
            continue;
        };
        preview.apply(outcome, started.elapsed(), Some(&names.join(", ")));
    }
}

/// Watch `dir` and everything under it, sending the paths of every event
/// that may change what renders; the watcher stops when the returned value
/// is dropped.
pub(crate) fn watch(
    dir: &Path,
    poll: bool,
    changes: mpsc::UnboundedSender<Vec<PathBuf>>,
) -> Result<Box<dyn Watcher + Send>, String> {
    let handler = move |result: notify::Result<notify::Event>| match result {
        Ok(event) if changes_content(&event.kind) => {
            let _ = changes.send(event.paths);
        }
        Ok(_) => {}
        Err(error) => eprintln!("refserve dev: watching: {error}"),
    };
    let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
    let cannot = |e: notify::Error| format!("cannot watch {}: {e}", dir.display());
    let mut watcher: Box<dyn Watcher + Send> = if poll {
        Box::new(notify::PollWatcher::new(handler, config).map_err(cannot)?)
    } else {
        Box::new(notify::RecommendedWatcher::new(handler, config).map_err(cannot)?)
    };
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .map_err(cannot)?;
    Ok(watcher)
}

/// Whether an event of `kind` may change what renders: a file created,
/// removed, renamed, written or given a new modification time — not read,
/// opened or closed unwritten, nor given new permissions or access times.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Modify(ModifyKind::Metadata(metadata)) => {
            matches!(metadata, MetadataKind::WriteTime | MetadataKind::Any)
        }
        _ => true,
    }
}

/// Whether `path` is a file an editor writes beside the one edited: a
/// swap, backup, lock or temporary file (Vim's `.x.swp`, `x~` and `4913`,
/// Emacs's `#x#` and `.#x`, Helix's `.bck`, `*.tmp`). Such a save ends by
/// writing or renaming onto the file itself, which is seen.
fn is_editor_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return true;
    };
    name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || [".swp", ".swo", ".swx", ".tmp", ".bck", ".bak", ".orig"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_own_files_are_ignored() {
        for name in [
            ".select.md.swp",
            "select.md~",
            "4913",
            "#select.md#",
            ".#select.md",
            "select.md.bck",
            "select.md.tmp",
        ] {
            assert!(
                is_editor_file(Path::new("content/methods").join(name).as_path()),
                "{name}"
            );
        }
        for name in ["select.md", "errors.json", "site.json"] {
            assert!(
                !is_editor_file(Path::new("content/methods").join(name).as_path()),
                "{name}"
            );
        }
    }

    #[test]
    fn only_what_may_change_content_starts_a_render() {
        use notify::event::{AccessKind, CreateKind, DataChange, RenameMode};
        assert!(
            !changes_content(&EventKind::Access(AccessKind::Any)),
            "a render's reads"
        );
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::AccessTime
        ))));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Permissions
        ))));
        assert!(
            changes_content(&EventKind::Modify(ModifyKind::Metadata(
                MetadataKind::WriteTime
            ))),
            "--poll"
        );
        assert!(changes_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(
            changes_content(&EventKind::Modify(ModifyKind::Name(RenameMode::To))),
            "a rename-style save"
        );
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
    }
}
