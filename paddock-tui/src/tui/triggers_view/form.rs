//! The Triggers view's add form (`n`): a name, when it fires, the prompt, and whether it
//! resumes one chat; what its "when" line says.

use paddock_proto::{HookEvent, MissedPolicy, SessionPolicy, TriggerKind, TriggerSet, TriggerSpec};

/// The form's fields, in Tab order.
pub(super) const NAME: usize = 0;
pub(super) const WHEN: usize = 1;
pub(super) const PROMPT: usize = 2;
pub(super) const SESSION: usize = 3;
pub(super) const FIELDS: usize = 4;

/// The small form `n` opens: a name, when it fires, the prompt, and whether it resumes one chat.
#[derive(Debug, Clone, Default)]
pub(super) struct Form {
    pub(super) project: String,
    pub(super) text: [String; 3],
    pub(super) resume: bool,
    pub(super) focus: usize,
    pub(super) error: Option<String>,
    /// Saved, waiting for the daemon.
    pub(super) sending: bool,
}

/// What the form's "when" says: `0 2 * * *` (a cron, then a zone if wanted), `every 15m`,
/// `on EVENT` (`on file_changed` then globs), or `manual`.
pub fn parse_when(when: &str) -> Result<TriggerSpec, String> {
    let words: Vec<&str> = when.split_whitespace().collect();
    let mut spec = TriggerSpec {
        kind: TriggerKind::Schedule,
        prompt: String::new(),
        cron: None,
        every: None,
        timezone: None,
        missed: MissedPolicy::Skip,
        on: None,
        paths: Vec::new(),
        debounce_secs: None,
        session: SessionPolicy::New,
        model: None,
        enabled: true,
        approval_timeout_secs: None,
    };
    match words.as_slice() {
        ["every", every] => spec.every = Some((*every).to_owned()),
        ["manual"] => {
            spec.kind = TriggerKind::Hook;
            spec.on = Some(HookEvent::Manual);
        }
        ["on", event, paths @ ..] => {
            let on: HookEvent = serde_json::from_value(serde_json::Value::String(
                (*event).to_owned(),
            ))
            .map_err(|_| {
                format!(
                    "no event {event}: on turn_completed, turn_failed, child_finished, \
                             file_changed [GLOB...] or manual"
                )
            })?;
            if !paths.is_empty() && on != HookEvent::FileChanged {
                return Err("globs are for on file_changed only".to_owned());
            }
            spec.kind = TriggerKind::Hook;
            spec.on = Some(on);
            spec.paths = paths.iter().map(|p| (*p).to_owned()).collect();
        }
        fields if fields.len() == 5 || fields.len() == 6 => {
            spec.cron = Some(fields[..5].join(" "));
            spec.timezone = fields.get(5).map(|z| (*z).to_owned());
        }
        _ => {
            return Err(
                "when: a cron (five fields, then a zone if you like), every 15m, on EVENT, or \
                 manual"
                    .to_owned(),
            );
        }
    }
    Ok(spec)
}

impl Form {
    pub(super) fn new(project: String) -> Self {
        Self {
            project,
            ..Self::default()
        }
    }

    /// The trigger the form describes, or what is missing.
    pub(super) fn trigger(&self) -> Result<TriggerSet, String> {
        let name = self.text[NAME].trim();
        if name.is_empty() {
            return Err("the trigger needs a name".to_owned());
        }
        let mut spec = parse_when(&self.text[WHEN])?;
        let prompt = self.text[PROMPT].trim();
        if prompt.is_empty() {
            return Err("the trigger needs a prompt".to_owned());
        }
        prompt.clone_into(&mut spec.prompt);
        if self.resume {
            spec.session = SessionPolicy::Resume;
        }
        Ok(TriggerSet {
            project_slug: self.project.clone(),
            name: name.to_owned(),
            spec,
        })
    }
}
