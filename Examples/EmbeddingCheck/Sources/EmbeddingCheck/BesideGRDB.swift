// An app that uses GRDB has `Database`, `Row`, `DatabaseValue`, `DatabaseValueConvertible`, `StatementArguments`,
// `DatabaseError` and `TransactionKind` in scope, and `databaseValue` on standard types. With Marginalia imported too, every one
// of them must still mean the app's own, unqualified: this file does not compile if Marginalia makes any of them
// public again.
import GRDBStandIn
import Marginalia

/// Copies the store's annotations into the app's own table next to the store's API, and reads them back.
func copyIntoAppDatabase(_ store: AnnotationStore) throws -> Int {
    let db = Database()
    let annotations: [Annotation] = try store.annotations(matching: AnnotationFilter(kind: .note))
    db.inTransaction(.immediate) { db in
        for annotation in annotations {
            db.execute(sql: "INSERT INTO app_notes (id, note, counter) VALUES (?, ?, ?)",
                       arguments: [annotation.id, annotation.note, Int(annotation.createdAt.counter)])
        }
    }
    let first: Row? = db.rows.first
    let id: DatabaseValue? = first?[0]
    guard let annotation = annotations.first, id == annotation.id.databaseValue,
          first?[1] == annotation.note.databaseValue, 42.databaseValue == .integer(42),
          db.statements.first == "BEGIN IMMEDIATE", db.statements.last == "COMMIT"
    else {
        fail("the app's own Database, Row and DatabaseValue did not round-trip an annotation")
    }
    let refused: DatabaseError = DatabaseError(resultCode: 19, message: "UNIQUE constraint failed")
    guard refused.resultCode == 19 else { fail("the app's own DatabaseError is not its own") }
    let arguments: StatementArguments = [annotation.id, Int64(db.rows.count)]
    return arguments.values.count == 2 ? db.rows.count : 0
}
