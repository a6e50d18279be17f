//! GitHub's rendering of a comment, as near as a test can get without GitHub: comrak's GFM and
//! the width rules of github-markdown-css.

/// `markdown` rendered as GitHub renders a comment: GFM with tables, strikethrough and autolinks,
/// raw HTML passed through (GitHub sanitizes it afterwards; the marker comment and
/// `<details>`/`<summary>` survive that).
pub fn gfm(markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.render.r#unsafe = true;
    comrak::markdown_to_html(markdown, &options)
}

/// GitHub's Markdown rules that decide widths (github-markdown-css, `.markdown-body`: a table is a
/// block of at most the body's width that scrolls its own overflow; words wrap); 14 px type as in
/// a comment, 16 px of padding.
pub const GITHUB_LIKE_CSS: &str = "
body { margin: 0; }
.markdown-body { box-sizing: border-box; padding: 16px; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI',
  'Noto Sans', Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5; word-wrap: break-word; color: #1f2328; }
.markdown-body table { border-spacing: 0; border-collapse: collapse; display: block; width: max-content; max-width: 100%;
  overflow: auto; }
.markdown-body table th, .markdown-body table td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body code { padding: .2em .4em; font-size: 85%; white-space: break-spaces; }
";

/// `body` (rendered Markdown) as a page with `css`.
pub fn github_page(body: &str, css: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>{css}</style></head><body><article class=\"markdown-body\">{body}</article></body></html>"
    )
}
