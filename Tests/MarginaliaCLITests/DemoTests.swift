import Foundation
import Testing

@Suite struct DemoTests {
    @Test func theDemoRunsTheWholeTourInItsOwnDirectory() throws {
        let workspace = try CLIWorkspace(sample: nil)
        let tour = workspace.path("tour")
        let result = try workspace.run(["demo", "--dir", tour])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("the store's full dump before and after the swap: identical"))
        #expect(result.stdout.contains("Edition eminescu-2026.2: 5 annotations — 1 intact, 3 moved, 1 orphaned"))
        #expect(result.stdout.contains("Re-anchored 3 annotations and confirmed 1 on edition eminescu-2026.2"))
        #expect(result.stdout.contains("Re-anchored 0 annotations and confirmed 0 on edition eminescu-2026.2"))
        #expect(result.stdout.contains("ok: 16 changes replay to 6 annotations and 1 reading position"))
        // It used its own store, never the user's.
        #expect(!FileManager.default.fileExists(atPath: workspace.store))
        #expect(FileManager.default.fileExists(atPath: tour + "/user.db"))
        // A second run into the same directory refuses rather than mixing stores.
        let again = try workspace.run(["demo", "--dir", tour])
        #expect(again.status == 1)
        #expect(again.stderr == "Error: \(tour)/user.db already exists; give the demo an empty directory\n")
    }
}
