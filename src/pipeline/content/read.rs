//! Reading the content directory: what a content file may be, and a JSON
//! one read into `serde` types.
//!
//! A content file is a regular file inside the content directory (a
//! symbolic link may lead to one, as long as it stays inside) of at most
//! [`MAX_FILE_BYTES`]. Anything else is a [`ContentError`] naming the file,
//! and is refused before it is opened: a FIFO would block the reader for
//! ever, a device or a huge file would fill the memory, and a file outside
//! the directory is not content (`refserve dev` would serve it).
//!
//! What is checked is what is read: the file is opened by the path that was
//! checked (every link resolved), without blocking, checked again once
//! open, and read up to one byte past the cap, so a file swapped or grown
//! after the check is refused too.

use super::{fail, ContentError, MAX_FILE_BYTES};
use serde::de::DeserializeOwned;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The content directory, as its errors name it and as it is on disk.
pub(super) struct Directory {
    /// What the directory's files are named relative to.
    root: PathBuf,
    /// The directory itself, every link resolved: no file may lead out of it.
    inside: PathBuf,
}

impl Directory {
    /// The content directory `dir` under `root`; its files are named as
    /// `dir/…`.
    pub(super) fn open(root: &Path, dir: &str) -> Result<Directory, ContentError> {
        let inside = std::fs::canonicalize(root.join(dir)).map_err(|e| {
            ContentError::new(dir, "", format!("cannot read the content directory: {e}"))
        })?;
        Ok(Directory {
            root: root.to_path_buf(),
            inside,
        })
    }

    /// The content file `file` (a path under the root), read from JSON
    /// into a `T`: an error names the field whose value does not fit, as a
    /// path from the top of the file (`groups[1].name`).
    pub(super) fn read_json<T: DeserializeOwned>(&self, file: &str) -> Result<T, ContentError> {
        let text = self.read_text(file)?;
        let mut json = serde_json::Deserializer::from_str(&text);
        let not_json = |error| ContentError::new(file, "", format!("is not valid JSON: {error}"));
        let value = serde_path_to_error::deserialize(&mut json).map_err(|error| {
            let path = error.path().to_string();
            let error = error.into_inner();
            if error.is_syntax() || error.is_eof() {
                return not_json(error);
            }
            ContentError::new(file, &path, error.to_string())
        })?;
        json.end().map_err(not_json)?;
        Ok(value)
    }

    /// The names in the directory `dir` (a path under the root), sorted;
    /// none of them is followed.
    pub(super) fn names(&self, dir: &str) -> Result<Vec<String>, ContentError> {
        let path = self.resolve(dir, "list")?;
        let listing = std::fs::read_dir(path)
            .map_err(|e| ContentError::new(dir, "", format!("cannot list: {e}")))?;
        let mut names: Vec<String> = listing
            .filter_map(Result::ok)
            .map(|item| item.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether `path` (under the root) is a regular file, links followed.
    pub(super) fn is_file(&self, path: &str) -> bool {
        self.root.join(path).is_file()
    }

    /// Whether `path` (under the root) is a directory, links followed.
    pub(super) fn is_dir(&self, path: &str) -> bool {
        self.root.join(path).is_dir()
    }

    /// The text of the content file `file`, if it is one.
    pub(super) fn read_text(&self, file: &str) -> Result<String, ContentError> {
        let path = self.resolve(file, "read")?;
        let cannot = |e: std::io::Error| ContentError::new(file, "", format!("cannot read: {e}"));
        content_file(file, &std::fs::metadata(&path).map_err(cannot)?)?;
        let opened = open_without_blocking(&path).map_err(cannot)?;
        content_file(file, &opened.metadata().map_err(cannot)?)?;
        let mut bytes = Vec::new();
        opened
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return too_large(file);
        }
        String::from_utf8(bytes)
            .map_err(|e| ContentError::new(file, "", format!("is not UTF-8: {e}")))
    }

    /// `file` with every link resolved; an error names it, as what could
    /// not be done (`verb`) or as leading outside the directory.
    fn resolve(&self, file: &str, verb: &str) -> Result<PathBuf, ContentError> {
        let path = std::fs::canonicalize(self.root.join(file))
            .map_err(|e| ContentError::new(file, "", format!("cannot {verb}: {e}")))?;
        if !path.starts_with(&self.inside) {
            return fail(
                file,
                "leads outside the content directory (a symbolic link); content files must be inside it",
            );
        }
        Ok(path)
    }
}

/// Whether `metadata` is that of a content file: a regular file of at most
/// [`MAX_FILE_BYTES`].
fn content_file(file: &str, metadata: &Metadata) -> Result<(), ContentError> {
    if !metadata.is_file() {
        return fail(
            file,
            format!("is {}; content files must be regular files", kind(metadata)),
        );
    }
    if metadata.len() > MAX_FILE_BYTES {
        return too_large(file);
    }
    Ok(())
}

fn too_large<T>(file: &str) -> Result<T, ContentError> {
    fail(
        file,
        format!(
            "is larger than {} MiB ({MAX_FILE_BYTES} bytes), the most a content file may hold",
            MAX_FILE_BYTES >> 20
        ),
    )
}

/// What a file that is not a regular file is, for a message.
fn kind(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    "not a regular file"
}

/// `path` opened for reading; a FIFO swapped in since it was checked is
/// opened at once (and refused), not waited on for a writer.
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}
