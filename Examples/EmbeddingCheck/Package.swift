// swift-tools-version:6.0
// An app's view of the library: a package of its own that depends on Marginalia by path, in Swift 6 language
// mode, and runs the engine's contract beside GRDB's names. CI builds and runs it.
import PackageDescription

let package = Package(
    name: "EmbeddingCheck",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "Marginalia", path: "../..")],
    targets: [
        .executableTarget(
            name: "EmbeddingCheck",
            dependencies: [.product(name: "Marginalia", package: "Marginalia"), "GRDBStandIn"]
        ),
        // GRDB's names (`Database`, `Row`, `DatabaseValue`, …), as an app that already uses GRDB imports them.
        .target(name: "GRDBStandIn"),
    ]
)
