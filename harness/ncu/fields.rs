//! The fields of one CSV record as ncu writes it (RFC 4180: `,` between fields; a field in `"`
//! may hold `,`, line breaks and `""` for a quote). Lenient where the `csv` crate is: text after a
//! closing quote and a quote inside an unquoted field are kept as they are.
//!
//! One [`Fields`] is reused for every record of a capture, so that splitting a row allocates
//! nothing once its buffers have grown to the widest row.

/// The fields of one record: the unescaped text of all fields, and where each ends.
#[derive(Debug, Clone, Default)]
pub struct Fields {
    text: String,
    ends: Vec<usize>,
}

impl Fields {
    /// Splits `record` (one whole record: its quotes balanced, line breaks inside quoted fields
    /// included) into these fields, replacing the previous ones. An empty record has one empty
    /// field.
    pub fn split(&mut self, record: &str) {
        self.text.clear();
        self.ends.clear();
        let bytes = record.as_bytes();
        let mut i = 0;
        loop {
            // Every boundary below is at an ASCII byte (`"` or `,`), so slicing `record` there is at
            // character boundaries.
            let mut start = i;
            if bytes.get(i) == Some(&b'"') {
                // A quoted field: up to the quote not doubled, then anything up to the comma.
                i += 1;
                start = i;
                loop {
                    match bytes[i..].iter().position(|&b| b == b'"') {
                        Some(q) if bytes.get(i + q + 1) == Some(&b'"') => {
                            self.text.push_str(&record[start..=i + q]);
                            i += q + 2;
                            start = i;
                        }
                        Some(q) => {
                            self.text.push_str(&record[start..i + q]);
                            i += q + 1;
                            start = i;
                            break;
                        }
                        None => {
                            i = bytes.len();
                            break;
                        }
                    }
                }
            }
            let end = bytes[i..].iter().position(|&b| b == b',').map_or(bytes.len(), |c| i + c);
            self.text.push_str(&record[start..end]);
            self.ends.push(self.text.len());
            if end == bytes.len() {
                return;
            }
            i = end + 1;
        }
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no fields (only before the first [`Fields::split`]).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Field `i`, or `None` past the last one.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    /// Field `i`, or `""` past the last one (a row cut short lacks its last fields).
    pub fn cell(&self, i: usize) -> &str {
        self.get(i).unwrap_or("")
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.cell(i))
    }

    /// Every field, owned.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

/// Whether a record that starts with `text` goes on past its end: `text` has an odd number of
/// quotes, so a quoted field is still open (it holds a line break).
pub fn quote_open(text: &str) -> bool {
    text.bytes().filter(|&b| b == b'"').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(record: &str) -> Vec<String> {
        let mut f = Fields::default();
        f.split(record);
        f.to_vec()
    }

    #[test]
    fn quoted_unquoted_empty_and_escaped_fields() {
        assert_eq!(split(r#""ID","Kernel Name","x""#), ["ID", "Kernel Name", "x"]);
        assert_eq!(split(r#""0","3,199,142,513.48","#), ["0", "3,199,142,513.48", ""]);
        assert_eq!(split("ID,Kernel Name,,7"), ["ID", "Kernel Name", "", "7"]);
        assert_eq!(split(""), [""]);
        assert_eq!(split(r#""566  ""<default domain>:saxpy:none"" ""#), [r#"566  "<default domain>:saxpy:none" "#]);
        assert_eq!(split(r#""void f<int, 4>(float *, ""x,y"")",1"#), [r#"void f<int, 4>(float *, "x,y")"#, "1"]);
        assert_eq!(split("\"a\nb\",c"), ["a\nb", "c"]);
        // Lenient as the csv crate: text after a closing quote, a quote inside an unquoted field.
        assert_eq!(split(r#""a"b,c"d"#), ["ab", r#"c"d"#]);
        assert_eq!(split(r#""open"#), ["open"]);
        let mut f = Fields::default();
        assert!(f.is_empty());
        f.split("a,b");
        assert_eq!((f.len(), f.get(1), f.get(2), f.cell(5)), (2, Some("b"), None, ""));
    }

    #[test]
    fn open_quotes_continue_the_record() {
        assert!(quote_open(r#""a","b"#));
        assert!(!quote_open(r#""a","b""c""#));
        assert!(!quote_open("plain"));
    }
}
