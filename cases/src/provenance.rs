//! Where a report comes from, recorded at the top of every `metrics.json` and `compare.json`:
//! plume's version, the command line, and the mesh file with the FNV-1a 64 hash of the bytes
//! read (`docs/fields.md`).

use std::io::Read;
use std::path::Path;

use serde::Serialize;

/// The provenance of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// plume's version (`plume --version`).
    pub plume_version: String,
    /// The command line that made the report, arguments quoted as a shell would need them.
    pub command_line: String,
    /// The initial mesh read, or `None` when the case builds its own (erosion).
    pub mesh: Option<MeshSource>,
}

impl Provenance {
    /// The provenance of a report this process makes from `mesh`.
    pub fn of_this_process(mesh: Option<MeshSource>) -> Provenance {
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        Provenance {
            plume_version: env!("CARGO_PKG_VERSION").to_string(),
            command_line: command_line(&args),
            mesh,
        }
    }
}

/// A mesh file as read: its name and the hash and length of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MeshSource {
    /// The file as given on the command line (or the built-in mesh's name).
    pub file: String,
    /// FNV-1a 64 of the file's bytes, 16 hexadecimal digits.
    pub fnv1a64: String,
    /// Length of the file in bytes.
    pub bytes: u64,
}

impl MeshSource {
    /// The source of `bytes` read from (or built in as) `file`.
    pub fn of_bytes(file: impl Into<String>, bytes: &[u8]) -> MeshSource {
        let mut hash = Fnv1a64::default();
        hash.write(bytes);
        MeshSource {
            file: file.into(),
            fnv1a64: hash.hex(),
            bytes: bytes.len() as u64,
        }
    }

    /// The source of the file at `path`, read in chunks.
    ///
    /// # Errors
    /// A message naming `path` when it cannot be read.
    pub fn of_file(path: &Path) -> plume::Result<MeshSource> {
        let io_error = |e: std::io::Error| plume::Error::io(path.display().to_string(), &e);
        let mut file = std::fs::File::open(path).map_err(io_error)?;
        let mut hash = Fnv1a64::default();
        let mut chunk = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut chunk).map_err(io_error)?;
            if n == 0 {
                break;
            }
            hash.write(&chunk[..n]);
            bytes += n as u64;
        }
        Ok(MeshSource {
            file: path.display().to_string(),
            fnv1a64: hash.hex(),
            bytes,
        })
    }
}

/// The 64-bit FNV-1a hash, fed in pieces.
#[derive(Debug, Clone, Copy)]
struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a64 {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// `args` joined by spaces, each quoted (`'…'`) when a shell would otherwise split or expand it.
fn command_line(args: &[String]) -> String {
    let plain = |a: &str| {
        !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:,=+@%".contains(c))
    };
    args.iter()
        .map(|a| {
            if plain(a) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        // From the FNV reference (isthe.com/chongo/tech/comp/fnv): "" and "a", "foobar".
        let hex = |s: &str| MeshSource::of_bytes("x", s.as_bytes()).fnv1a64;
        assert_eq!(hex(""), "cbf29ce484222325");
        assert_eq!(hex("a"), "af63dc4c8601ec8c");
        assert_eq!(hex("foobar"), "85944171f73967e8");
    }

    #[test]
    fn a_hash_fed_in_pieces_is_the_hash_of_the_whole() {
        let dir = std::env::temp_dir().join(format!("plume-provenance-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.msh");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let read = MeshSource::of_file(&path).unwrap();
        assert_eq!(
            read,
            MeshSource::of_bytes(path.display().to_string(), &bytes)
        );
        assert_eq!(read.bytes, 200_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn command_lines_quote_what_a_shell_would_split() {
        let args = ["plume", "run", "shock", "--out", "my out", "it's"].map(String::from);
        assert_eq!(
            command_line(&args),
            r"plume run shock --out 'my out' 'it'\''s'"
        );
    }
}
