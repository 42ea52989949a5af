import Foundation

/// The report page's own style sheet and script, and the Content-Security-Policy that allows that script alone.
enum AuditReportStyle {
    /// Inline CSS: readable from 320 px wide; operations carry their names, colour only adds to them.
    static let css = """
        :root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fdfdfb;--muted:#5c5c5c;--line:#d4d4d0;--ok:#0b6b2e;\
        --bad:#a4161a;--warn:#8a5300}
        @media (prefers-color-scheme:dark){:root{--fg:#e8e8e4;--bg:#161616;--muted:#b0b0aa;--line:#444;\
        --ok:#5fd38a;--bad:#ff8a80;--warn:#ffc266}}
        *{box-sizing:border-box}
        body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
        header,main,nav,footer{max-width:70rem;margin:0 auto;padding:0 1rem}
        h1{font-size:1.6rem;margin:1rem 0 .25rem}h2{font-size:1.3rem;border-bottom:1px solid var(--line);\
        margin-top:2rem}h3{font-size:1.1rem}
        nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
        code,.id{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
        .muted{color:var(--muted)}
        .verdict{font-size:1.15rem;padding:.5rem .75rem;border:2px solid;border-radius:.3rem}
        .verdict.ok{border-color:var(--ok)}.verdict.bad{border-color:var(--bad)}
        .scroll{overflow-x:auto;max-width:100%}
        table{border-collapse:collapse;margin:.5rem 0}
        th,td{border:1px solid var(--line);padding:.2rem .45rem;text-align:left;vertical-align:top}
        td.n{text-align:right;font-variant-numeric:tabular-nums}td.time,td code{white-space:nowrap}
        b[class]{display:inline-block;font-size:.8em;font-weight:600;padding:0 .35em;border:1px solid;\
        border-radius:.25em}
        b.create{color:var(--ok)}b.delete{color:var(--bad)}b.edit,b.set{color:var(--fg)}
        b.undelete,b.reanchor,b.reattach,b.confirm{color:var(--warn)}
        details.annotation{border:1px solid var(--line);border-radius:.3rem;margin:.4rem 0;padding:.2rem .6rem}
        details.annotation>summary{cursor:pointer;overflow-wrap:anywhere}
        summary i{font-style:normal;color:var(--muted)}summary q{quotes:none;font-style:italic}\
        summary span{white-space:pre-wrap}details.annotation>code{display:block;margin:.5rem 0}
        details.annotation ol{padding-left:1.2rem}details.annotation li{margin:.3rem 0;overflow-wrap:anywhere}
        del{color:var(--bad)}ins{color:var(--ok);text-decoration:none}
        b{font-weight:600}
        figure{margin:0}svg.timeline{max-width:100%;height:auto;border:1px solid var(--line)}
        .swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}
        @media (max-width:40rem){body{font-size:15px}th,td{padding:.15rem .3rem}}
        """

    /// The report's one script: a filter box over the annotations. The page reads the same without it.
    static let script = """
        (function(){var slot=document.getElementById('filter-slot');if(!slot)return;\
        var input=document.createElement('input');input.type='search';input.id='filter';\
        input.setAttribute('aria-label','Show only annotations containing');input.placeholder='Filter annotations';\
        slot.appendChild(input);input.addEventListener('input',function(){var q=input.value.toLowerCase();\
        document.querySelectorAll('details.annotation').forEach(function(d){\
        d.hidden=q!==''&&d.textContent.toLowerCase().indexOf(q)<0;});});})();
        """

    /// The Content-Security-Policy: nothing from anywhere (no network request, no frame, no form; frame-ancestors
    /// is left out, as a meta element cannot carry it), inline
    /// styles, data: images, and only the script above by its SHA-256.
    static func contentSecurityPolicy() throws -> String {
        let digest = try SHA256Digest.digest(of: Array(script.utf8))
        return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            + "script-src 'sha256-\(Data(digest).base64EncodedString())'; base-uri 'none'; form-action 'none'"
    }

    /// Colours of the devices in the timeline, in the order the report lists them (repeating after eight); the
    /// legend names each one.
    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
}
