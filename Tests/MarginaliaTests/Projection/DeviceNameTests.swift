import Foundation
import Testing
@testable import Marginalia

/// Devices with names: a change in the log, merged by the register rule, carried by archives.
@Suite struct DeviceNameTests {
    @Test func aNameIsAChangeInTheLogAndTheLatestWins() throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(1_800_000_000_000)
        let store = try makeStore(directory, wallClock: clock.now)
        let first = try store.nameDevice("laptop")
        #expect(first.payload == .nameDevice("laptop"))
        #expect(first.entityID == store.deviceID)
        clock.advance(1000)
        try store.nameDevice("work laptop")
        #expect(try store.device().name == "work laptop")
        #expect(try store.deviceNames() == [store.deviceID: "work laptop"])
        #expect(try store.changeCount() == 2)
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.problems)")
        #expect(report.changeCount == 2)
    }

    @Test func namesTravelByMergeAndConvergeInEitherOrder() throws {
        let directory = try TemporaryDirectory()
        let laptop = try makeStore(directory, name: "laptop.db", wallClock: { 1_800_000_000_000 })
        let phone = try makeStore(directory, name: "phone.db", wallClock: { 1_800_000_005_000 })
        try laptop.nameDevice("laptop")
        try phone.nameDevice("phone")
        // Each store names its own device, and both names reach both stores.
        try laptop.merge(try phone.changes(after: nil))
        try phone.merge(try laptop.changes(after: nil))
        for store in [laptop, phone] {
            #expect(try store.deviceNames() == [laptop.deviceID: "laptop", phone.deviceID: "phone"])
            #expect(try store.verify().isHealthy)
        }
        // An older name arriving after a newer one loses.
        let older = Change(changeID: Identifiers.make(), hlc: HLC(milliseconds: 1_700_000_000_000, counter: 0),
                           device: laptop.deviceID, entityID: laptop.deviceID, payload: .nameDevice("old name"))
        let report = try phone.merge([older])
        #expect(report.newChanges == 1)
        #expect(try phone.deviceNames()[laptop.deviceID] == "laptop")
        #expect(try phone.verify().isHealthy)
    }

    @Test func anArchiveCarriesTheNamesIntoAnEmptyStoreAndARestore() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, source: makeSource([("d", [("d.1", "A fost odată")])]))
        try store.createAnnotation(.highlight, at: AnchorRequest(passage: "d.1"))
        try store.nameDevice("laptop")
        let archive = directory.path("a.jsonl.gz")
        try store.exportArchive(toFile: archive)
        let other = try AnnotationStore.open(path: directory.path("other.db"), access: .create)
        try other.importArchive(path: archive)
        #expect(try other.deviceNames() == [store.deviceID: "laptop"])
        #expect(try other.verify().isHealthy)
        let restored = directory.path("restored.db")
        try AnnotationStore.restore(archive: archive, to: restored)
        #expect(try AnnotationStore.open(path: restored, access: .readOnly).deviceNames()
            == [store.deviceID: "laptop"])
    }

    @Test func aStoreWhoseNameRowWasTamperedWithFailsVerify() throws {
        let directory = try TemporaryDirectory()
        let connection = try StoreConnection.open(path: directory.path("user.db"), access: .create)
        _ = try connection.write { transaction in
            try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: "laptop"))
        }
        try connection.db.execute(sql: "UPDATE devices SET name = 'someone else'")
        let report = try connection.verifier.verify()
        #expect(report.problems == ["devices: the name of \(connection.deviceID) differs from the replay of its changes"])
    }

    @Test(arguments: ["", " laptop", "laptop ", "a\u{1B}[2Jb", String(repeating: "x", count: 65)])
    func aNameThatIsNotALabelIsRefusedAndNothingWritten(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory)
        let error = try #require(throws: MarginaliaError.self) { try store.nameDevice(name) }
        #expect(error.category == .invalidArgument)
        #expect(try store.changeCount() == 0)
    }

    @Test func devicesSayHowTheirChangesArrived() throws {
        let directory = try TemporaryDirectory()
        let laptop = try makeStore(directory, name: "laptop.db")
        let phone = try makeStore(directory, name: "phone.db")
        try phone.nameDevice("phone")
        try laptop.nameDevice("laptop")
        try laptop.merge(try phone.changes(after: nil))
        let devices = try laptop.devices()
        #expect(devices.map(\.id) == [laptop.deviceID, phone.deviceID])
        #expect(devices.map(\.name) == ["laptop", "phone"])
        #expect(devices.map(\.isThisDevice) == [true, false])
        #expect(devices.map(\.changeCount) == [1, 1])
        #expect(devices.map(\.arrivals) == [[.madeHere], [.merge]])
    }
}
