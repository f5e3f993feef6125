import LibcurlBridge
import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The end of a final response that arrives before the request body ended: libcurl 7.88 keeps
/// such a transfer running while its upload is paused for the body source (and stops watching
/// the connection), so the hop follows the response's framing in the raw bytes received
/// (`ResponseEnd`, fed by libcurl's debug callback; or the server's close, for a response the
/// close delimits) and, once the response ended, ends the transfer itself with that response:
/// the handle leaves the multi handle (its connection is closed, never reused, as the request
/// was not sent whole) and the task gets the response and its end; the body's producer is then
/// stopped by the task's completion.
extension CurlTransfer {
    /// Has libcurl show the hop's raw received bytes to `debugCallback`: for a hop sending a
    /// body stream, the one kind libcurl may pause.
    func watchResponseEnd(_ easy: UnsafeMutableRawPointer, into sink: inout HandleSink) {
        sink.check(CurlOption.debugFunction, afn_easy_setopt_pointer(easy, CurlOption.debugFunction, unsafeBitCast(Self.debugCallback, to: UnsafeRawPointer.self)))
        sink.check(CurlOption.debugData, afn_easy_setopt_pointer(easy, CurlOption.debugData, Unmanaged.passUnretained(self).toOpaque()))
        sink.check(CurlOption.verbose, afn_easy_setopt_long(easy, CurlOption.verbose, 1))
    }

    /// The final response's head arrived: its end is followed when the hop watches for it.
    /// Returns `false` when the transfer must stop: a framing that cannot be followed fails the
    /// task with its fault (a `Content-Length` folded onto a second line, which
    /// `ResponseFraming` reads line by line), where waiting would end only at the idle timeout.
    func followResponseEnd(of response: HTTPURLResponse) -> Bool {
        guard case .stream = body else { return true }
        let framing: ResponseEnd.Framing
        do {
            framing = try ResponseEnd.framing(
                status: response.statusCode, isHead: request.httpMethod?.uppercased() == "HEAD",
                transferEncoding: response.value(forHTTPHeaderField: "Transfer-Encoding"),
                contentLength: response.value(forHTTPHeaderField: "Content-Length"))
        } catch {
            hop.framingFault = error
            return false
        }
        let end = ResponseEnd(framing: framing)
        hop.responseEnd = end
        if end.isComplete { transport.responseEnded(self) }
        return true
    }

    static let debugCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32 = {
        _, kind, bytes, count, context in
        guard kind == CurlDebug.dataIn, let bytes, count > 0 else { return 0 }
        transfer(context).receivedRaw(UnsafeRawBufferPointer(start: bytes, count: count))
        return 0
    }

    /// Raw bytes of the response body arrived (before libcurl decodes them into write callbacks).
    private func receivedRaw(_ bytes: UnsafeRawBufferPointer) {
        guard var end = hop.responseEnd, !end.isComplete else { return }
        end.consume(bytes)
        hop.responseEnd = end
        if end.isComplete { transport.responseEnded(self) }
    }

    /// libcurl stopped watching the hop's connection `socket` (it does once it read the end of
    /// a response delimited by the close, with the upload paused): such a response has ended
    /// when the server closed the connection, which a peek finds.
    func connectionUnwatched(_ socket: Int32) {
        guard var end = hop.responseEnd, !end.isComplete else { return }
        var byte: UInt8 = 0
        guard recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0 else { return }
        end.connectionClosed()
        hop.responseEnd = end
        if end.isComplete { transport.responseEnded(self) }
    }

    /// After the libcurl call in which the final response ended, when libcurl did not end the
    /// transfer: ends it with its response. A transfer whose consumer paused reading is ended
    /// once reading resumed and the rest of the body was delivered (`resumeReading`).
    func endAtResponseEnd() {
        guard let easy, hop.responseEnd?.isComplete == true, !receiveFlow.isPaused else { return }
        _ = afn_easy_setopt_long(easy, CurlOption.forbidReuse, 1)
        transport.remove(easy)
        finish(curlCode: CurlCode.ok)
    }
}
