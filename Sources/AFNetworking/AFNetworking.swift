// The umbrella module: `import AFNetworking` gives every public API of the package.
@_exported import AFSerialization
@_exported import AFSession
