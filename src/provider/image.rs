//! Vision (`--vision on`, docs/interactive.md "Images"): a user message whose text holds an
//! `<attached-images>` block of `[Image #N] => /…/images/N.png` lines (the block
//! `agent::inject` adds for `[Image #N]` placeholders) is rewritten before the request is
//! built: the block leaves the text and each image becomes a base64 `image` block (the
//! canonical Claude shape). The OpenAI chat and Responses conversions already turn such
//! blocks into `image_url` and `input_image` parts, so this is the one place images are read.
//! The stored conversation line keeps its placeholder text; images are re-read from the
//! session's images/ folder on every request (so a resumed session sends them too).
use base64::Engine;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const OPEN: &str = "<attached-images>\n";
const CLOSE: &str = "</attached-images>";
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The lines with images inlined; `None` when no line has an image block (nothing to do).
/// An image that cannot be read fails the request (the model must not silently miss it).
pub fn inline(lines: &[String], storage: &Path) -> Result<Option<Vec<String>>, String> {
    if !lines.iter().any(|l| l.contains("<attached-images>")) {
        return Ok(None);
    }
    let storage = std::fs::canonicalize(storage).unwrap_or_else(|_| storage.to_path_buf());
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        match l.contains("<attached-images>") {
            true => out.push(user_message(l, &storage)?.unwrap_or_else(|| l.clone())),
            false => out.push(l.clone()),
        }
    }
    Ok(Some(out))
}

/// One conversation line rewritten, `None` when it is not a user message with a valid block.
pub fn user_message(line: &str, storage: &Path) -> Result<Option<String>, String> {
    let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(line) else {
        return Ok(None);
    };
    if m.get("role").and_then(Value::as_str) != Some("user") {
        return Ok(None);
    }
    if let Some(changed) = tool_results(&mut m, storage)? {
        return Ok(changed.then(|| Value::Object(m).to_string()));
    }
    let texts: Vec<String> = match m.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a))
            if a.iter()
                .all(|b| b.get("type").and_then(Value::as_str) == Some("text")) =>
        {
            a.iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
                .collect()
        }
        _ => return Ok(None),
    };
    let mut content = Vec::new();
    let mut images = Vec::new();
    for t in texts {
        let (clean, paths) = split_block(&t);
        for p in paths {
            images.push(image_block(&p, storage)?);
        }
        if !clean.is_empty() {
            content.push(json!({"type": "text", "text": clean}));
        }
    }
    if images.is_empty() {
        return Ok(None);
    }
    content.extend(images);
    m.insert("content".into(), Value::Array(content));
    Ok(Some(Value::Object(m).to_string()))
}

/// A user message of tool results: each result whose text holds an image block (an MCP
/// tool's images, `agent::extensions`) gets `[text, image…]` content, the shape Anthropic
/// takes in a tool_result and the OpenAI/Responses conversions turn into image parts.
/// `None` when the message holds no tool result; `Some(changed)` otherwise.
fn tool_results(m: &mut Map<String, Value>, storage: &Path) -> Result<Option<bool>, String> {
    let Some(Value::Array(blocks)) = m.get_mut("content") else {
        return Ok(None);
    };
    let is_result = |b: &Value| b.get("type").and_then(Value::as_str) == Some("tool_result");
    if !blocks.iter().any(is_result) {
        return Ok(None);
    }
    let mut changed = false;
    for b in blocks.iter_mut().filter(|b| is_result(b)) {
        let Some(Value::String(t)) = b.get("content") else {
            continue;
        };
        let (clean, paths) = split_block(t);
        if paths.is_empty() {
            continue;
        }
        let mut content = vec![json!({"type": "text", "text": clean})];
        for p in paths {
            content.push(image_block(&p, storage)?);
        }
        b["content"] = Value::Array(content);
        changed = true;
    }
    Ok(Some(changed))
}

/// The text without its image block(s), and the image paths they named. A block without
/// a valid mapping line is left in the text.
fn split_block(text: &str) -> (String, Vec<PathBuf>) {
    let mut clean = String::new();
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        let Some(j) = rest[i..].find(CLOSE).map(|j| i + j) else {
            break;
        };
        let found: Vec<PathBuf> = rest[i + OPEN.len()..j]
            .lines()
            .filter_map(mapping)
            .collect();
        if found.is_empty() {
            clean.push_str(&rest[..j + CLOSE.len()]);
        } else {
            clean.push_str(rest[..i].trim_end_matches('\n'));
            paths.extend(found);
        }
        rest = &rest[j + CLOSE.len()..];
    }
    clean.push_str(rest);
    (clean, paths)
}

/// Extension → (media type, leading bytes) of the image kinds sent (the kinds
/// `ui::clipboard` stores; kept here so the provider layer reads no terminal code).
const KINDS: &[(&str, &str, &[u8])] = &[
    ("png", "image/png", PNG_SIGNATURE),
    ("jpg", "image/jpeg", b"\xff\xd8\xff"),
    ("gif", "image/gif", b"GIF8"),
    ("webp", "image/webp", b"RIFF"),
];

/// `[Image #N] => /abs/…/images/N.<ext>` → the path.
fn mapping(line: &str) -> Option<PathBuf> {
    let rest = line.strip_prefix("[Image #")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let path = rest[digits.len()..].strip_prefix("] => ")?;
    let named = KINDS
        .iter()
        .any(|(ext, _, _)| path.ends_with(&format!("/images/{digits}.{ext}")));
    (!digits.is_empty() && path.starts_with('/') && named).then(|| PathBuf::from(path))
}

/// Read one image: a regular image file whose bytes match its extension (no symlink at the file, images/ or session level)
/// inside the session storage.
fn image_block(path: &Path, storage: &Path) -> Result<Value, String> {
    let bad = |why: &str| format!("cannot attach image {}: {why}", path.display());
    let images = path.parent().ok_or_else(|| bad("no folder"))?;
    let session = images.parent().ok_or_else(|| bad("no session folder"))?;
    for p in [path, images, session] {
        let md = std::fs::symlink_metadata(p).map_err(|e| bad(&e.to_string()))?;
        if md.file_type().is_symlink() {
            return Err(bad("a symbolic link"));
        }
    }
    let real = std::fs::canonicalize(path).map_err(|e| bad(&e.to_string()))?;
    if !real.starts_with(storage) {
        return Err(bad("outside the session storage"));
    }
    let bytes = std::fs::read(&real).map_err(|e| bad(&e.to_string()))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let media_type = KINDS
        .iter()
        .find(|(e, _, sig)| *e == ext && bytes.starts_with(sig))
        .map(|(_, mt, _)| *mt)
        .ok_or_else(|| bad(&format!("not a {ext} image")))?;
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let mut src = Map::new();
    src.insert("type".into(), json!("base64"));
    src.insert("media_type".into(), json!(media_type));
    src.insert("data".into(), json!(data));
    Ok(json!({"type": "image", "source": Value::Object(src)}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_images() {
        let d = tempfile::tempdir().expect("tmp");
        let storage = std::fs::canonicalize(d.path()).expect("canon");
        let img = storage.join("proj/s1/images");
        std::fs::create_dir_all(&img).expect("mkdir");
        std::fs::write(img.join("1.png"), b"\x89PNG\r\n\x1a\nxy").expect("w");
        let text = format!(
            "look [Image #1]\n\n<attached-images>\n[Image #1] => {}\nUse a visual skill.\n</attached-images>",
            img.join("1.png").display()
        );
        let line = json!({"role": "user", "content": text}).to_string();
        let out = inline(std::slice::from_ref(&line), &storage)
            .expect("ok")
            .expect("some");
        let v: Value = serde_json::from_str(&out[0]).expect("json");
        assert_eq!(v["content"][0]["text"], "look [Image #1]");
        assert_eq!(v["content"][1]["type"], "image");
        assert_eq!(v["content"][1]["source"]["media_type"], "image/png");
        assert_eq!(v["content"][1]["source"]["data"], "iVBORw0KGgp4eQ==");
        // No block: untouched; a missing file fails the request.
        assert!(
            inline(&["{\"role\":\"user\",\"content\":\"hi\"}".into()], &storage)
                .expect("ok")
                .is_none()
        );
        // A tool result's block (an MCP tool's image) becomes [text, image] content.
        let tr = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
            "content": format!("[image: image/png, 10 bytes]\n\n<attached-images>\n[Image #1] => {}\n</attached-images>", img.join("1.png").display())}]})
        .to_string();
        let out = inline(std::slice::from_ref(&tr), &storage)
            .expect("ok")
            .expect("some");
        let v: Value = serde_json::from_str(&out[0]).expect("json");
        let c = &v["content"][0]["content"];
        assert_eq!(c[0]["text"], "[image: image/png, 10 bytes]");
        assert_eq!(c[1]["source"]["data"], "iVBORw0KGgp4eQ==");
        std::fs::remove_file(img.join("1.png")).expect("rm");
        assert!(inline(&[line], &storage).is_err());
    }
}
