// The umbrella module: `import AFNetworking` gives every public API of the package, and on
// Linux also FoundationNetworking, where `URLRequest`, `URLSession` and friends live there.
@_exported import AFSerialization
@_exported import AFSession
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
