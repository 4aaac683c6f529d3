//! The CLI's `can_use_tool` requests against the project's permission settings: a tool that
//! matches `allowed_tools` runs at once; anything else goes to the approvals inbox
//! (`approvals.rs`), whose answer (or timeout) is written back with [`answer`].

use serde_json::{Value, json};

/// Whether `tool` matches one of the patterns: an exact name, or a prefix ending in `*`
/// (`mcp__paddock__*`).
pub fn allowed(tool: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => tool.starts_with(prefix),
        None => p == tool,
    })
}

/// The `control_response` for a `can_use_tool` request.
pub fn answer(request_id: &str, input: &Value, deny: Option<&str>) -> Value {
    let response = match deny {
        None => json!({"behavior": "allow", "updatedInput": input}),
        Some(message) => json!({"behavior": "deny", "message": message}),
    };
    json!({
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": response}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let p = vec!["Bash".to_owned(), "mcp__paddock__*".to_owned()];
        assert!(allowed("Bash", &p));
        assert!(!allowed("BashX", &p));
        assert!(allowed("mcp__paddock__send_file", &p));
        assert!(!allowed("Edit", &p));
        assert!(!allowed("Edit", &[]));
    }
}
