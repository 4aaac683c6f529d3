//! The trigger tools (`list_triggers`, `set_trigger`, `remove_trigger`, `run_trigger`), the
//! same for a chat's agent and for a management client: each surface picks the project (the
//! chat's by default; a client names it and must be let into it), then calls this.

use paddock_proto::{TriggerFire, TriggerList, TriggerRef, TriggerSet, TriggerSpec};
use serde_json::{Value, json};

use crate::handles::Daemon;

/// Runs trigger tool `tool` on `project` with the call's `args`; the answer as JSON text for
/// the model, or why not. `cause`: the calling agent's turn, which a `run_trigger` fire runs
/// at (`lineage.rs`; a management client's call has none).
pub(crate) async fn call(
    d: &Daemon,
    project: String,
    tool: &str,
    args: &Value,
    cause: Option<&crate::lineage::Lineage>,
) -> Result<String, String> {
    match tool {
        "list_triggers" => {
            let list = crate::triggers::list(
                &d.trigger_ops,
                TriggerList {
                    project_slug: Some(project),
                },
            )
            .await
            .map_err(|e| e.message)?;
            Ok(text(&list.triggers))
        }
        "set_trigger" => {
            let name = name(args)?;
            let mut fields = args.as_object().cloned().unwrap_or_default();
            fields.remove("name");
            fields.remove("project");
            let spec: TriggerSpec = serde_json::from_value(Value::Object(fields))
                .map_err(|e| format!("not a trigger: {e}"))?;
            let info = crate::triggers::set(
                &d.trigger_ops,
                TriggerSet {
                    project_slug: project,
                    name,
                    spec,
                },
            )
            .await
            .map_err(|e| e.message)?;
            Ok(text(&info))
        }
        "remove_trigger" => {
            let name = name(args)?;
            crate::triggers::remove(
                &d.trigger_ops,
                TriggerRef {
                    project_slug: project,
                    name: name.clone(),
                },
            )
            .await
            .map_err(|e| e.message)?;
            Ok(json!({"removed": name}).to_string())
        }
        "run_trigger" => {
            let fired = crate::triggers::fire(
                &d.trigger_ops,
                TriggerFire {
                    project_slug: project,
                    name: name(args)?,
                    message: args
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                },
                cause,
            )
            .await
            .map_err(|e| e.message)?;
            Ok(text(&fired))
        }
        other => Err(format!("unknown tool {other}")),
    }
}

/// The trigger's `name` argument.
fn name(args: &Value) -> Result<String, String> {
    args.get("name")
        .and_then(Value::as_str)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_owned)
        .ok_or_else(|| "missing argument \"name\" (a non-empty string)".to_owned())
}

/// JSON text of a reply, for the model.
fn text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
