@testable import Marginalia
import Testing

/// The devices another tool's files are recorded under are named by the projection, which knows no interop type:
/// its table must name every format the interop adapter reads.
@Suite struct ImportedDeviceNameTests {
    @Test func everyFormatsDeviceHasAName() {
        for format in InteropFormat.allCases {
            let name = DeviceNames.derivedName(of: DerivedIdentifiers.device(of: format))
            #expect(name?.hasSuffix(" import") == true, "no name for the device of \(format.rawValue)")
        }
        #expect(DeviceNames.derivedName(of: "import-kindle") == "Kindle import")
        #expect(DeviceNames.derivedName(of: "import-unknown") == nil)
        #expect(DeviceNames.derivedName(of: "kindle") == nil)
        #expect(Set(DeviceNames.importedTools.keys) == Set(InteropFormat.allCases.map(\.rawValue)))
    }
}
