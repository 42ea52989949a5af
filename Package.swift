// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Marginalia",
    products: [
        .library(name: "Marginalia", targets: ["Marginalia"]),
        .executable(name: "marginalia", targets: ["MarginaliaCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "Marginalia",
            dependencies: ["CSQLite", "CZlib"]
        ),
        .executableTarget(
            name: "MarginaliaCLI",
            dependencies: ["Marginalia"]
        ),
        .testTarget(
            name: "MarginaliaTests",
            dependencies: ["Marginalia"]
        ),
        .testTarget(
            name: "MarginaliaCLITests",
            // Depends on the executable so that `swift test` builds the binary these tests run.
            dependencies: ["Marginalia", "MarginaliaCLI"]
        ),
    ]
)
