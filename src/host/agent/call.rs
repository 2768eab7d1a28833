//! One tool call of the model, made by the host: to its server as `tools/call`, and back to
//! the model as a tool result.

use serde_json::Value;

use super::{Loop, Progress, line};
use crate::wire::catalog::Catalog;
use crate::wire::convert;

impl Loop<'_> {
    /// One model tool call: to its server as `tools/call`, back as a tool result.
    pub(super) async fn call(
        &self,
        catalog: &Catalog,
        call: &convert::ModelToolCall,
        progress: Progress<'_>,
    ) -> Vec<Value> {
        let args = [("name", call.name.as_str()), ("id", call.id.as_str())];
        progress(&line(self.lang, "tool_call", &args));
        let arguments = match &call.arguments {
            Ok(arguments) => arguments.clone(),
            Err(e) => {
                let text = format!(
                    "the model's arguments for `{}` are not usable: {e}",
                    call.name
                );
                self.host_note(&text, progress);
                return convert::tool_error_to_api(self.shape, &call.id, &call.name, &text);
            }
        };
        let Some(entry) = catalog.resolve(&call.name) else {
            let text = format!(
                "the model called `{}`, which the host did not offer",
                call.name
            );
            self.host_note(&text, progress);
            return convert::tool_error_to_api(self.shape, &call.id, &call.name, &text);
        };
        let Some(connection) = self.connections.iter().find(|c| c.name == entry.server) else {
            return convert::tool_error_to_api(
                self.shape,
                &call.id,
                &call.name,
                "server not connected",
            );
        };
        let args = [
            ("server", entry.server.as_str()),
            ("tool", entry.mcp_name.as_str()),
        ];
        progress(&line(self.lang, "tools_call", &args));
        match connection.call_tool(&entry.mcp_name, arguments).await {
            Ok(result) => {
                let text = result_text(&result);
                let args = [("server", entry.server.as_str()), ("text", text.as_str())];
                progress(&line(self.lang, "result", &args));
                convert::tool_result_to_api(self.shape, &call.id, &call.name, &result)
            }
            Err(e) => {
                let text = e.to_string();
                progress(&line(self.lang, "failed", &[("text", &text)]));
                convert::tool_error_to_api(self.shape, &call.id, &call.name, &e.to_string())
            }
        }
    }
}

/// The text parts of a `CallToolResult`, for the terminal.
fn result_text(result: &Value) -> String {
    let parts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let error = if result.get("isError").and_then(Value::as_bool) == Some(true) {
        " (isError)"
    } else {
        ""
    };
    format!("{}{error}", parts.join(" "))
}
