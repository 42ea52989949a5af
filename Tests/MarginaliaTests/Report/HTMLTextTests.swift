import Foundation
import Testing
@testable import Marginalia

/// `HTMLText`: what a report does to the text of a note, a quote, a tag or a name before it reaches a page.
@Suite struct HTMLTextTests {
    @Test func markupCharactersAreEscaped() {
        #expect(HTMLText.escaped("<script>alert('x') & \"y\"</script>")
            == "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        #expect(HTMLText.escaped("<img src=x onerror=\"window.pwned=1\">")
            == "&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;")
    }

    @Test func plainTextIsLeftAsItIs() {
        #expect(HTMLText.escaped("A fost odată ca-n poveşti,\nşi ştiinţă\t— «citat»") ==
            "A fost odată ca-n poveşti,\nşi ştiinţă\t— «citat»")
        #expect(HTMLText.escaped("") == "")
        #expect(HTMLText.escaped("javascript:void(0)") == "javascript:void(0)")
    }

    @Test func controlAndDirectionCharactersAreShownAsTheirCodePoints() {
        #expect(HTMLText.escaped("harmless\u{202E}txt.exe") == "harmless&lt;U+202E&gt;txt.exe")
        #expect(HTMLText.escaped("a\u{1B}[31mb\u{7}") == "a&lt;U+001B&gt;[31mb&lt;U+0007&gt;")
        #expect(HTMLText.escaped("\u{200B}\u{2066}x\u{2069}\u{FEFF}\u{85}\r")
            == "&lt;U+200B&gt;&lt;U+2066&gt;x&lt;U+2069&gt;&lt;U+FEFF&gt;&lt;U+0085&gt;&lt;U+000D&gt;")
        #expect(HTMLText.escaped("\u{2028}") == "&lt;U+2028&gt;")
    }

    @Test func everyHiddenScalarIsOneThatChangesHowTextReads() {
        let hidden = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter(HTMLText.isHidden).map(\.value)
        let expected: [UInt32] = Array(0...0x08) + Array(0x0B...0x1F) + Array(0x7F...0x9F) + [0x061C]
            + Array(0x200B...0x200F) + Array(0x2028...0x202E) + Array(0x2060...0x2064) + Array(0x2066...0x2069)
            + [0xFEFF]
        #expect(hidden == expected)
    }

    @Test func theReportsScriptIsAllowedByItsPolicyHash() throws {
        let policy = try AuditReportStyle.contentSecurityPolicy()
        let digest = try SHA256Digest.digest(of: Array(AuditReportStyle.script.utf8))
        #expect(policy == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src "
            + "'sha256-\(Data(digest).base64EncodedString())'; base-uri 'none'; form-action 'none'")
    }
}
