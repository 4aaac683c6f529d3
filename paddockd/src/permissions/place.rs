//! Where a path a tool call names really leads, for the rules, the inbox's preview and
//! "always": resolved as the kernel would open it (`confine::locate`: symlinks followed, `..`
//! resolved), so a link inside the project that leads elsewhere is judged as elsewhere.

use std::path::{Path, PathBuf};

use crate::confine::{self, Naming, Private, Refused};

/// Where a named path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Inside the project: `real` is where it leads, relative to the project's directory
    /// (`/`-separated, `""` for the directory itself); `named` is the path as named from it.
    Inside { real: String, named: String },
    /// Outside the project, at this real path.
    Outside(PathBuf),
    /// paddockd's own state: denied whatever the rules.
    Private(String),
    /// Cannot be told before the call runs (a symlink to nothing, a `$VAR`, a `~`, a folder
    /// that cannot be read): judged as leading anywhere.
    Unknown(String),
}

impl Place {
    /// Whether the path stays inside the project.
    pub fn inside(&self) -> bool {
        matches!(self, Self::Inside { .. })
    }

    /// The path as a person should see it: the real path, marked when it is not inside, with
    /// the name it was given when that differs; `raw` is the name as given from the project's
    /// directory `dir` (shown relative to it when it names a path below it).
    pub fn shown(&self, raw: &str, dir: &Path) -> String {
        let rel = Path::new(raw)
            .strip_prefix(dir)
            .ok()
            .and_then(Path::to_str)
            .filter(|r| !r.is_empty());
        let raw = rel.unwrap_or(raw);
        match self {
            Self::Inside { real, named } if real == named || real.is_empty() => raw.to_owned(),
            Self::Inside { real, .. } => format!("{raw} → {real} (a link inside the project)"),
            Self::Outside(path) => {
                let path = path.to_string_lossy();
                if path == raw {
                    format!("{path} (outside the project)")
                } else {
                    format!("{path} (outside the project; named {raw})")
                }
            }
            Self::Private(why) => format!("{raw} (paddockd's own state: {why})"),
            Self::Unknown(why) => format!("{raw} ({why})"),
        }
    }
}

/// Files every command may name: they lead nowhere a rule guards.
const HARMLESS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Where `raw`, named by an agent from the project's directory `dir`, leads.
pub fn locate(private: &Private, dir: &Path, raw: &str) -> Place {
    if raw.contains('$') {
        return Place::Unknown("a variable: where it leads is known only when it runs".into());
    }
    if raw.starts_with('~') {
        return Place::Unknown("a home folder: outside the project".into());
    }
    match confine::locate(private, dir, raw, Naming::Agent) {
        Ok(confine::Place::Inside(c)) => {
            let real = c
                .path
                .strip_prefix(&c.root)
                .map(|r| {
                    r.components()
                        .filter_map(|c| c.as_os_str().to_str())
                        .collect::<Vec<_>>()
                        .join("/")
                })
                .unwrap_or_default();
            Place::Inside { real, named: c.rel }
        }
        Ok(confine::Place::Outside(path)) => Place::Outside(path),
        Err(e @ Refused::Private(_)) => Place::Private(e.to_string()),
        Err(Refused::Dangling(_)) => Place::Unknown("a symlink to nothing".into()),
        Err(e) => Place::Unknown(e.to_string()),
    }
}

/// The path a command word names, if it may name one: the value of `--opt=VALUE`, else the
/// word itself; `None` for an option, a harmless device, or an empty word.
pub fn word_path(word: &str) -> Option<&str> {
    let path = match word.strip_prefix('-') {
        Some(opt) => opt.split_once('=')?.1,
        None => word,
    };
    (!path.is_empty() && !HARMLESS.contains(&path)).then_some(path)
}

/// Whether a redirection's target is a harmless device.
pub fn harmless(target: &str) -> bool {
    HARMLESS.contains(&target)
}

/// Where the words of a command lead that are not inside the project: each with its place.
pub fn words_outside<'a>(
    private: &Private,
    dir: &Path,
    words: impl IntoIterator<Item = &'a String>,
) -> Vec<(&'a str, Place)> {
    words
        .into_iter()
        .filter_map(|w| word_path(w))
        .map(|p| (p, locate(private, dir, p)))
        .filter(|(_, place)| !place.inside())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_link_is_judged_by_where_it_leads() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let dir = base.join("web");
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::create_dir_all(base.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(base.join("elsewhere"), dir.join("out")).unwrap();
        std::os::unix::fs::symlink("lib", dir.join("src")).unwrap();
        std::os::unix::fs::symlink(base.join("nothing"), dir.join("dangling")).unwrap();
        let p = Private::default();
        assert_eq!(
            locate(&p, &dir, "out/pwned.txt"),
            Place::Outside(base.join("elsewhere/pwned.txt"))
        );
        assert_eq!(
            locate(&p, &dir, "src/a.rs"),
            Place::Inside {
                real: "lib/a.rs".into(),
                named: "src/a.rs".into()
            }
        );
        assert!(locate(&p, &dir, "a/new/file").inside());
        assert!(matches!(locate(&p, &dir, "dangling"), Place::Unknown(_)));
        assert!(matches!(locate(&p, &dir, "$HOME/x"), Place::Unknown(_)));
        assert!(matches!(
            locate(&p, &dir, "~/.ssh/id_rsa"),
            Place::Unknown(_)
        ));
        assert_eq!(
            locate(&p, &dir, "../web/../elsewhere/x"),
            Place::Outside(base.join("elsewhere/x"))
        );
        let shown = locate(&p, &dir, "out/pwned.txt").shown("out/pwned.txt", &dir);
        assert!(
            shown.contains("elsewhere/pwned.txt (outside the project; named out/pwned.txt)"),
            "{shown}"
        );
        assert_eq!(word_path("--file=/etc/x"), Some("/etc/x"));
        assert_eq!(word_path("-la"), None);
        assert_eq!(word_path("/dev/null"), None);
    }
}
