import Foundation
import Testing
@testable import Marginalia

/// A Markdown export into a folder a note app keeps: one file per document, block ids, only changed files
/// rewritten, a person's own lines kept.
@Suite struct MarkdownFolderTests {
    @Test func aSecondExportRewritesOnlyWhatChangedAndKeepsThePersonsLines() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        try store.attachContent(path: try SampleContent.shared.path(edition: 2))
        let kept = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "luceafarul.3"), note: "întâi")
        let gone = try store.createAnnotation(.note, at: AnchorRequest(passage: "luceafarul.4"), note: "se duce")
        let other = try store.createAnnotation(.highlight, at: AnchorRequest(passage: "scrisoarea-i.3"))
        let folder = directory.path("vault")
        let first = try store.exportMarkdown(toDirectory: folder)
        #expect(first.written == ["luceafarul.md", "scrisoarea-i.md"] && first.annotations == 3)
        let path = "\(folder)/luceafarul.md"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: MarkdownWriter.blockID(kept.id)).count == 2)
        #expect(text.contains(MarkdownWriter.blockID(gone.id)))
        // The person writes around the section.
        try ("Gândurile mele, deasupra.\n\n" + text + "\nȘi dedesubt.\n").write(toFile: path, atomically: true,
                                                                              encoding: .utf8)
        let otherBefore = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/scrisoarea-i.md"))
        try store.editAnnotation(id: kept.id, note: "a doua oară")
        try store.deleteAnnotation(id: gone.id)
        let second = try store.exportMarkdown(toDirectory: folder)
        #expect(second.written == ["luceafarul.md"] && second.unchanged == ["scrisoarea-i.md"])
        text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("Gândurile mele, deasupra.\n") && text.hasSuffix("\nȘi dedesubt.\n"))
        #expect(text.components(separatedBy: MarkdownWriter.blockID(kept.id)).count == 2)
        #expect(text.contains("a doua oară") && !text.contains("întâi"))
        #expect(!text.contains(MarkdownWriter.blockID(gone.id)) && !text.contains("se duce"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/scrisoarea-i.md")) == otherBefore)
        _ = other
        // A file of a document's name that a person made is left alone.
        try "mine\n".write(toFile: "\(folder)/scrisoarea-i.md", atomically: true, encoding: .utf8)
        let third = try store.exportMarkdown(toDirectory: folder)
        #expect(third.leftAlone == ["scrisoarea-i.md"])
        #expect(try String(contentsOfFile: "\(folder)/scrisoarea-i.md", encoding: .utf8) == "mine\n")
    }
}
