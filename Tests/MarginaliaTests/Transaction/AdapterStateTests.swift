import Foundation
import Testing
@testable import Marginalia

/// The core's operations on what the adapters keep (`adapter_state`), on a real store in memory.
@Suite struct AdapterStateTests {
    let db: SQLiteDatabase
    let archive: AdapterState
    let sync: AdapterState

    init() throws {
        db = try UserDatabase.open(path: ":memory:", access: .create)
        archive = AdapterState(db: db, owner: "archive")
        sync = AdapterState(db: db, owner: "sync")
    }

    /// Every row of the table, as "owner/name=value".
    func rows() throws -> [String] {
        try db.fetchAll(sql: "SELECT owner, name, value FROM adapter_state ORDER BY owner, name") {
            "\(try $0.string(0))/\(try $0.string(1))=\(try $0.string(2))"
        }
    }

    @Test func aValueIsSetReplacedAndRemovedUnderItsOwnerOnly() throws {
        #expect(try archive.value(of: "x") == nil)
        try archive.set("x", to: "1")
        try sync.set("x", to: "other")
        try archive.set("x", to: "2")
        #expect(try archive.value(of: "x") == "2")
        #expect(try sync.value(of: "x") == "other")
        #expect(try rows() == ["archive/x=2", "sync/x=other"])
        try archive.remove("x")
        try archive.remove("never set")
        #expect(try archive.value(of: "x") == nil)
        #expect(try rows() == ["sync/x=other"])
    }

    /// A prefix is matched exactly: `_` and `%` are no patterns, and the case of letters counts.
    @Test func valuesByPrefixAreTheOwnersWhoseNamesStartWithItExactly() throws {
        for name in ["pending_import:b", "pending_import:a", "pendingXimport:c", "PENDING_IMPORT:d", "pending%"] {
            try archive.set(name, to: name.uppercased())
        }
        try sync.set("pending_import:e", to: "sync's")
        let found = try archive.values(prefix: "pending_import:")
        #expect(found.map(\.name) == ["pending_import:a", "pending_import:b"])
        #expect(found.map(\.value) == ["PENDING_IMPORT:A", "PENDING_IMPORT:B"])
        #expect(try archive.values().map(\.name)
            == ["PENDING_IMPORT:d", "pending%", "pendingXimport:c", "pending_import:a", "pending_import:b"])
        #expect(try archive.hasValues(prefix: "pending_import:"))
        #expect(try !archive.hasValues(prefix: "pending_import:z"))
        #expect(try !AdapterState(db: db, owner: "interop").hasValues())
        #expect(try AdapterState(db: db, owner: "interop").values().isEmpty)
    }

    /// The compare-and-delete removes a value only as the caller read it: one another writer moved on is kept.
    @Test func aValueIsRemovedOnlyWhileItIsStillTheOneRead() throws {
        try archive.set("pending_import:a", to: "step 1")
        try archive.set("pending_import:a", to: "step 2")
        #expect(try !archive.remove("pending_import:a", ifStill: "step 1"))
        #expect(try archive.value(of: "pending_import:a") == "step 2")
        #expect(try !sync.remove("pending_import:a", ifStill: "step 2"))
        #expect(try archive.remove("pending_import:a", ifStill: "step 2"))
        #expect(try rows() == [])
        #expect(try !archive.remove("pending_import:a", ifStill: "step 2"))
    }

    /// The values are written in the caller's transaction, and go when it rolls back.
    @Test func aValueSetInATransactionThatRollsBackIsGone() throws {
        struct Stop: Error {}
        try? db.transaction(.immediate) {
            try archive.set("x", to: "1")
            throw Stop()
        }
        #expect(try rows() == [])
    }

    @Test func theTableIsKeptFromSchemaTenOn() throws {
        #expect(try AdapterState.isKept(in: db))
        let older = try SQLiteDatabase.inMemory()
        try UserDatabase.migrate(older, migrations: UserSchema.migrations.filter { $0.version <= 9 },
                                 newDeviceID: { "device-9" })
        #expect(try !AdapterState.isKept(in: older))
    }
}
