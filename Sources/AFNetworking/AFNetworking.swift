// The umbrella module: `import AFNetworking` gives every public API of the package together
// with the Foundation types its signatures use (`URL`, `Data`, and on Linux `URLRequest`,
// `URLSession` and friends, which live in FoundationNetworking there).
@_exported import AFSerialization
@_exported import AFSession
@_exported import AFTransport
@_exported import AFSecurity
@_exported import AFReachability
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
