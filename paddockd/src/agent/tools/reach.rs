//! Where a chat's tools may act: its own project, and the projects its project's `reach`
//! setting names ([`Reach::of_project`], the rule the management endpoint's clients are held
//! to as well). Every tool that names a project, or a chat (whose project is found from its
//! full id first, the id the tool then acts on), asks here before it does anything; a call
//! across projects without the setting is answered with why, in words the model can pass on
//! to the user, and nothing is done.

use crate::agent::Identity;
use crate::handles::Daemon;
use crate::projects::Project;
use crate::reach::{EVERY, Reach};

/// The calling chat's project and what it reaches, read from its `project.toml` at the call
/// (a person's `paddock project set --reach` counts from the next call).
pub(super) struct Reaching {
    /// The calling chat's project.
    slug: String,
    /// Its `reach` setting, as written.
    listed: Vec<String>,
    reach: Reach,
}

impl Reaching {
    /// What chat `who`'s project reaches. A project that does not load reaches only itself.
    pub(super) async fn of(d: &Daemon, who: &Identity) -> Self {
        let listed = match d.project(&who.project_slug).await {
            Ok(p) => p.file.reach,
            Err(e) => {
                tracing::warn!(project = %who.project_slug, "the project's settings do not load ({}); its chats' tools reach only it", e.message);
                Vec::new()
            }
        };
        Self {
            reach: Reach::of_project(&who.project_slug, &listed),
            slug: who.project_slug.clone(),
            listed,
        }
    }

    /// Whether project `slug` is reached (a listing shows only those).
    pub(super) fn reaches(&self, slug: &str) -> bool {
        self.reach.reaches(slug)
    }

    /// Whether some project is out of reach (no `"*"` in the setting).
    pub(super) fn confined(&self) -> bool {
        self.reach.confined()
    }

    /// `Ok` when project `slug` is reached, else why not: `what` names the thing the call was
    /// about (the project, or the chat in it).
    fn check(&self, slug: &str, what: &str) -> Result<(), String> {
        if self.reaches(slug) {
            return Ok(());
        }
        tracing::warn!(project = %self.slug, target = %slug, "agent tool call refused: another project, outside this project's reach");
        let reaches = match self.listed.iter().filter(|s| **s != self.slug).count() {
            0 => "only itself".to_owned(),
            _ => format!(
                "only itself and {}",
                self.listed
                    .iter()
                    .filter(|s| **s != self.slug)
                    .map(|s| named(s))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Err(format!(
            "not allowed: {what}; this chat is in {}, which may reach {reaches} (its `reach` setting). Nothing was done. Only a person can allow it, with `paddock project set {} --reach {}`; tell the user if this is needed.",
            named(&self.slug),
            shell_word(&self.slug),
            shell_word(slug),
        ))
    }

    /// `Ok` when project `slug`, which the call names, is reached.
    pub(super) fn project(&self, slug: &str) -> Result<(), String> {
        slug_only(slug)?;
        self.check(slug, &format!("{} is another project", named(slug)))
    }

    /// `Ok` when a new project `slug` would be reached: a chat creates a project only where
    /// a person has let its project reach already (never widening its own reach).
    pub(super) fn new_project(&self, slug: &str) -> Result<(), String> {
        slug_only(slug)?;
        self.check(
            slug,
            &format!(
                "creating {} would act outside this chat's project",
                named(slug)
            ),
        )
        .map_err(|why| format!("{why} (`--reach '{EVERY}'` lets it reach every project)"))
    }

    /// The project of chat `sid` (its full id), when it is reached.
    pub(super) async fn chat(&self, d: &Daemon, sid: &str) -> Result<Project, String> {
        let project = crate::chats::project_of(&d.chats, sid)
            .await
            .map_err(|e| e.message)?;
        self.check(
            &project.slug,
            &format!("chat {sid} is in {}", named(&project.slug)),
        )?;
        Ok(project)
    }
}

/// `Ok` for a slug (`""` the root workspace): what the refusal's command line may hold.
fn slug_only(slug: &str) -> Result<(), String> {
    if slug.is_empty() || crate::projects::valid_slug(slug) {
        Ok(())
    } else {
        Err(format!(
            "no project {slug:?}: a slug is lower-case letters, digits, '-', '_' and '.' (\"\" is the root workspace)"
        ))
    }
}

/// A project as a sentence names it: project `web`, or the root workspace.
fn named(slug: &str) -> String {
    if slug.is_empty() {
        "the root workspace".to_owned()
    } else {
        format!("project `{slug}`")
    }
}

/// A slug as a shell command line takes it (`''` for the root workspace, `'*'` quoted).
fn shell_word(slug: &str) -> String {
    if slug.is_empty() || slug == EVERY {
        format!("'{slug}'")
    } else {
        slug.to_owned()
    }
}
