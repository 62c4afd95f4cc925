//! Reading a session whole: its file and companions, fingerprinted, imported.

use super::*;

impl Reading {
    /// Reads the file and its companions (each fingerprinted before it is
    /// read) and imports them.
    pub(in crate::sources::recordings) fn read(self) -> Result<Whole, String> {
        let path = self.path;
        let mut seen = vec![(path.clone(), fingerprint(&path).map_err(|e| e.to_string())?)];
        let text = read_text(&path)?;
        let mut offsets = HashMap::new();
        offsets.insert(
            path.clone(),
            Offset::after_read(&path, text.as_bytes(), text.len()),
        );
        let mut files: Vec<(String, String)> = Vec::new();
        for companion in self.companions {
            let Ok(f) = fingerprint(&companion) else {
                continue;
            };
            seen.push((companion.clone(), f));
            match read_text(&companion) {
                Ok(child) => {
                    let offset = Offset::after_read(&companion, child.as_bytes(), child.len());
                    offsets.insert(companion.clone(), offset);
                    files.push((companion_name(&self.root, &companion), child));
                }
                Err(e) => tracing::warn!("skipping subagent file {}: {e}", companion.display()),
            }
        }
        let (fold, events) = Fold::new(&text, &files)?;
        let (title, said) = if fold.follows() {
            (fold.title(), fold.working())
        } else {
            let said = detect(&text).and_then(|d| agent_working(d, &text));
            (session_title(&text, &events), said)
        };
        Ok(Whole {
            fold,
            events,
            title,
            said,
            seen,
            offsets,
        })
    }
}
