import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Overloads that let a completion handler be written as a trailing closure: in the full forms
/// a trailing closure would bind to the first closure parameter, a progress handler.
extension URLSessionManager {
    /// `dataTask(with:credential:uploadProgress:downloadProgress:completionHandler:)` without
    /// progress handlers.
    public func dataTask(with request: URLRequest, completionHandler: @escaping CompletionHandler) throws -> URLSessionTask {
        try dataTask(with: request, credential: nil, uploadProgress: nil, downloadProgress: nil, completionHandler: completionHandler)
    }

    /// `uploadTask(with:fromFile:credential:progress:completionHandler:)` without a progress handler.
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL, completionHandler: @escaping CompletionHandler) throws -> URLSessionTask {
        try uploadTask(with: request, fromFile: fileURL, credential: nil, progress: nil, completionHandler: completionHandler)
    }

    /// `uploadTask(with:from:credential:progress:completionHandler:)` without a progress handler.
    public func uploadTask(with request: URLRequest, from bodyData: Data, completionHandler: @escaping CompletionHandler) throws -> URLSessionTask {
        try uploadTask(with: request, from: bodyData, credential: nil, progress: nil, completionHandler: completionHandler)
    }

    /// `uploadTask(withStreamedRequest:credential:progress:completionHandler:)` without a progress handler.
    public func uploadTask(withStreamedRequest request: URLRequest, completionHandler: @escaping CompletionHandler) throws -> URLSessionTask {
        try uploadTask(withStreamedRequest: request, credential: nil, progress: nil, completionHandler: completionHandler)
    }
}
