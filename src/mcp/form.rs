//! The form of an elicitation: the requested schema's fields (a flat object of primitive
//! properties, as the spec restricts it), their `default` values (SEP-1034: a field left
//! empty takes its default), the question put to the person field by field, and each answer
//! checked against its field's type, enum and bounds before anything is sent.
use serde_json::{json, Map, Value};

/// One field of the form.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub kind: String,
    pub title: String,
    pub required: bool,
    pub default: Option<Value>,
    /// Allowed values (`enum`, or `oneOf`/`anyOf` consts; `items` ones for an array).
    pub choices: Vec<String>,
    pub schema: Value,
}

/// Text from a server, with control characters shown escaped (never sent to the terminal).
pub fn shown(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn choices(s: &Value) -> Vec<String> {
    let consts = |k: &str| -> Option<Vec<String>> {
        let a = s.get(k)?.as_array()?;
        Some(
            a.iter()
                .filter_map(|o| o.get("const").and_then(Value::as_str).map(str::to_string))
                .collect(),
        )
    };
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
    }
    consts("oneOf")
        .or_else(|| consts("anyOf"))
        .or_else(|| s.get("items").map(choices))
        .unwrap_or_default()
}

/// The fields of a requested schema; Err when it is not the flat object the spec allows.
pub fn fields(schema: &Value) -> Result<Vec<Field>, String> {
    let empty = Map::new();
    let props = match schema.get("properties") {
        None => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return Err("requestedSchema.properties is not an object".into()),
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, s) in props {
        let kind = s.get("type").and_then(Value::as_str).unwrap_or("string");
        if !matches!(kind, "string" | "number" | "integer" | "boolean" | "array") {
            return Err(format!(
                "field {name:?} has type {kind:?}, not a primitive one"
            ));
        }
        let f = Field {
            name: name.clone(),
            kind: kind.to_string(),
            title: s
                .get("title")
                .or_else(|| s.get("description"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            required: required.contains(&name.as_str()),
            default: None,
            choices: choices(s),
            schema: s.clone(),
        };
        // A default that does not fit its own field is ignored rather than sent.
        let default = s.get("default").filter(|d| check(&f, d).is_ok()).cloned();
        out.push(Field { default, ..f });
    }
    Ok(out)
}

/// The content made of the defaults alone: None when a required field has none.
pub fn defaults(fields: &[Field]) -> Option<Value> {
    let mut m = Map::new();
    for f in fields {
        match &f.default {
            Some(d) => {
                m.insert(f.name.clone(), d.clone());
            }
            None if f.required => return None,
            None => {}
        }
    }
    Some(Value::Object(m))
}

/// Does `v` fit the field's schema?
pub fn check(f: &Field, v: &Value) -> Result<(), String> {
    let num = |k: &str| f.schema.get(k).and_then(Value::as_f64);
    match (f.kind.as_str(), v) {
        ("string", Value::String(s)) => {
            let n = s.chars().count() as f64;
            if !f.choices.is_empty() && !f.choices.contains(s) {
                return Err(format!("one of: {}", f.choices.join(", ")));
            }
            if num("minLength").is_some_and(|m| n < m) || num("maxLength").is_some_and(|m| n > m) {
                return Err("a text of the allowed length".into());
            }
            Ok(())
        }
        ("number" | "integer", Value::Number(x)) => {
            let x = x.as_f64().unwrap_or(f64::NAN);
            if f.kind == "integer" && x.fract() != 0.0 {
                return Err("a whole number".into());
            }
            if num("minimum").is_some_and(|m| x < m) || num("maximum").is_some_and(|m| x > m) {
                return Err("a number within the allowed range".into());
            }
            Ok(())
        }
        ("boolean", Value::Bool(_)) => Ok(()),
        ("array", Value::Array(a)) => {
            match a
                .iter()
                .find(|x| !x.as_str().is_some_and(|s| f.choices.iter().any(|c| c == s)))
            {
                Some(_) => Err(format!("some of: {}", f.choices.join(", "))),
                None => Ok(()),
            }
        }
        _ => Err(format!("a {}", f.kind)),
    }
}

/// A typed answer read as the field's type.
pub fn parse(f: &Field, text: &str) -> Result<Value, String> {
    let t = text.trim();
    let v = match f.kind.as_str() {
        "boolean" => match t.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => json!(true),
            "n" | "no" | "false" => json!(false),
            _ => return Err("yes or no".into()),
        },
        "integer" => json!(t.parse::<i64>().map_err(|_| "a whole number".to_string())?),
        "number" => {
            let x: f64 = t.parse().map_err(|_| "a number".to_string())?;
            serde_json::Number::from_f64(x)
                .map(Value::Number)
                .ok_or("a finite number")?
        }
        "array" => Value::Array(
            t.split(',')
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .map(|s| json!(s))
                .collect(),
        ),
        _ => json!(text),
    };
    check(f, &v).map(|()| v)
}

/// Ask the person (through `ask`, which shows a text and returns the next line typed)
/// and make the result: accept with the content, decline, or cancel.
pub fn ask(server: &str, params: &Value, ask: &dyn Fn(&str) -> Option<String>) -> Value {
    let cancel = json!({"action": "cancel"});
    let message = params.get("message").and_then(Value::as_str).unwrap_or("");
    let fields = match params.get("requestedSchema").map(fields) {
        Some(Ok(f)) => f,
        _ => Vec::new(),
    };
    let intro = format!(
        "MCP server {} asks for input:\n  {}\n  [y] answer · [n] decline · [c] cancel\n",
        shown(server),
        shown(message)
    );
    match ask(&intro).map(|l| l.trim().to_ascii_lowercase()) {
        Some(a) if a == "y" || a == "yes" => {}
        Some(a) if a == "n" || a == "no" || a.starts_with("decline") => {
            return json!({"action": "decline"})
        }
        _ => return cancel,
    }
    let mut content = Map::new();
    for f in &fields {
        let mut hint = f.kind.clone();
        if !f.choices.is_empty() {
            hint = format!("{}: {}", hint, f.choices.join(" | "));
        }
        if let Some(d) = &f.default {
            hint = format!("{hint}; Enter for {d}");
        } else if !f.required {
            hint = format!("{hint}; optional, Enter to leave out");
        }
        let title = match f.title.as_str() {
            "" => String::new(),
            t => format!(" — {}", shown(t)),
        };
        let q = format!("  {}{title} ({})\n", shown(&f.name), shown(&hint));
        let mut retry = String::new();
        for tries in 1..=3 {
            let Some(line) = ask(&format!("{retry}{q}")) else {
                return cancel;
            };
            let got = if line.trim().is_empty() {
                match (&f.default, f.required) {
                    (Some(d), _) => Ok(Some(d.clone())),
                    (None, false) => Ok(None),
                    (None, true) => Err("an answer (this field is required)".to_string()),
                }
            } else {
                parse(f, &line).map(Some)
            };
            match got {
                Ok(v) => {
                    if let Some(v) = v {
                        content.insert(f.name.clone(), v);
                    }
                    break;
                }
                Err(_) if tries == 3 => return cancel,
                Err(want) => retry = format!("  expected {want}\n"),
            }
        }
    }
    let content = Value::Object(content);
    let review = format!(
        "  Send {} to {}? [y] send · [n] decline · [c] cancel\n",
        shown(&content.to_string()),
        shown(server)
    );
    match ask(&review).map(|l| l.trim().to_ascii_lowercase()) {
        Some(a) if a == "y" || a == "yes" => json!({"action": "accept", "content": content}),
        Some(a) if a == "n" || a == "no" => json!({"action": "decline"}),
        _ => cancel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn conformance_schema() -> Value {
        json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": true},
            "bad": {"type": "integer", "default": "x"}}, "required": []})
    }

    #[test]
    fn defaults_fill_the_form_and_a_bad_default_is_ignored() {
        let f = fields(&conformance_schema()).unwrap();
        assert_eq!(
            defaults(&f).unwrap(),
            json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
        );
        let req =
            fields(&json!({"properties": {"x": {"type": "string"}}, "required": ["x"]})).unwrap();
        assert!(defaults(&req).is_none());
        assert!(fields(&json!({"properties": {"o": {"type": "object"}}})).is_err());
    }

    #[test]
    fn answers_are_checked_and_enter_takes_the_default() {
        let answers = RefCell::new(vec![
            "y", "", "abc", "41", "", "maybe", "inactive", "no", "", "y",
        ]);
        let shown_texts = RefCell::new(String::new());
        let ask = |t: &str| {
            shown_texts.borrow_mut().push_str(t);
            let mut a = answers.borrow_mut();
            (!a.is_empty()).then(|| a.remove(0).to_string())
        };
        let params = json!({"message": "who?", "requestedSchema": conformance_schema()});
        let r = super::ask("srv", &params, &ask);
        assert_eq!(r["action"], "accept", "{}", shown_texts.borrow());
        assert_eq!(
            r["content"],
            json!({"name": "John Doe", "age": 41, "score": 95.5, "status": "inactive", "verified": false, "bad": null}).as_object().map(|m| {
                let mut m = m.clone();
                m.remove("bad");
                Value::Object(m)
            }).unwrap()
        );
        assert!(shown_texts.borrow().contains("expected a whole number"));
        let no = super::ask("srv", &params, &|_| Some("n".into()));
        assert_eq!(no["action"], "decline");
        assert_eq!(super::ask("srv", &params, &|_| None)["action"], "cancel");
    }
}
