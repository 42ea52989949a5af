import Foundation
import Testing
@testable import Marginalia

/// A write runs with a transaction context (`StoreTransaction`): what it settles (a renewed device id, the clock)
/// reaches the connection only when it commits.
@Suite struct StoreTransactionTests {
    struct Rollback: Error {}

    @Test func aRenewedIdTakesEffectInTheTransactionAtOnceAndForTheStoreOnCommit() throws {
        let directory = try TemporaryDirectory()
        let connection = try StoreConnection.open(path: directory.path("user.db"), access: .create)
        let old = connection.deviceID
        var renewed = ""
        let change = try connection.write { transaction in
            renewed = try transaction.renewDeviceID()
            #expect(transaction.deviceID == renewed && connection.deviceID == renewed,
                    "inside the transaction, its id is the new one")
            return try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: "laptop"))
        }
        #expect(renewed != old)
        #expect(change.device == renewed)
        #expect(connection.deviceID == renewed)
        #expect(try connection.db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") == renewed)
    }

    @Test func aRolledBackRenewalLeavesTheStoreItsId() throws {
        let directory = try TemporaryDirectory()
        let connection = try StoreConnection.open(path: directory.path("user.db"), access: .create)
        let old = connection.deviceID
        #expect(throws: Rollback.self) {
            try connection.write { transaction in
                try transaction.renewDeviceID()
                try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: "laptop"))
                throw Rollback()
            }
        }
        #expect(connection.deviceID == old)
        #expect(try connection.db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") == old)
        #expect(try connection.changeCount() == 0)
        // The next write records under the id the store kept.
        let change = try connection.write { transaction in
            try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: "laptop"))
        }
        #expect(change.device == old)
    }

    @Test func aWriteInsideAWriteRunsInItsTransaction() throws {
        let directory = try TemporaryDirectory()
        let connection = try StoreConnection.open(path: directory.path("user.db"), access: .create)
        try connection.write { outer in
            try connection.write { inner in #expect(inner === outer) }
            #expect(connection.transaction === outer)
        }
        #expect(connection.transaction == nil)
    }

    /// A write takes in what another connection committed: its clock is past the log's latest change, and its
    /// device id is the one the store holds now.
    @Test func aWriteStartsFromWhatTheStoreHoldsNow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        let first = try StoreConnection.open(path: path, access: .create)
        let second = try StoreConnection.open(path: path, access: .readWrite)
        let renewed = try second.write { try $0.renewDeviceID() }
        let made = try second.write { try $0.record(.device, $0.deviceID, .set, ChangeFields(name: "phone")) }
        let next = try first.write { transaction in
            #expect(transaction.deviceID == renewed)
            return try transaction.record(.device, transaction.deviceID, .set, ChangeFields(name: "laptop"))
        }
        #expect(next.hlc > made.hlc)
        #expect(first.deviceID == renewed)
    }

    /// The engine has each of its reads and writes begin with the device id the store holds then: another
    /// connection (a restore) may have renewed it since the engine's connections last looked.
    @Test func theEnginesReadsAndWritesSeeARenewedDeviceID() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("user.db")
        let store = try AnnotationStore.open(path: path, access: .create)
        let before = try store.engine.read { $0.deviceID }
        let other = try StoreConnection.open(path: path, access: .readWrite)
        let renewed = try other.write { try $0.renewDeviceID() }
        #expect(renewed != before)
        #expect(try store.engine.read { $0.deviceID } == renewed)
        #expect(try store.engine.write { $0.deviceID } == renewed)
    }
}
