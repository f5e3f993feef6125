/// The libcurl 7.x option and return values the transport uses (curl.h and multi.h;
/// their numbers are part of libcurl's stable ABI).
enum CurlOption {
    static let writeData: Int32 = 10_001
    static let url: Int32 = 10_002
    static let readData: Int32 = 10_009
    static let errorBuffer: Int32 = 10_010
    static let writeFunction: Int32 = 20_011
    static let readFunction: Int32 = 20_012
    static let seekFunction: Int32 = 20_167
    static let seekData: Int32 = 10_168
    static let httpHeader: Int32 = 10_023
    static let headerData: Int32 = 10_029
    /// `CURLOPT_TRAILERFUNCTION` and `CURLOPT_TRAILERDATA` (libcurl 7.64).
    static let trailerFunction: Int32 = 20_283
    static let trailerData: Int32 = 10_284
    static let customRequest: Int32 = 10_036
    static let noProgress: Int32 = 43
    static let noBody: Int32 = 44
    static let upload: Int32 = 46
    static let sslVerifyPeer: Int32 = 64
    static let headerFunction: Int32 = 20_079
    static let sslVerifyHost: Int32 = 81
    static let bufferSize: Int32 = 98
    static let noSignal: Int32 = 99
    static let acceptEncoding: Int32 = 10_102
    static let sslContextFunction: Int32 = 20_108
    static let sslContextData: Int32 = 10_109
    static let inFileSizeLarge: Int32 = 30_115
    static let sslSessionIDCache: Int32 = 150
    static let timeoutMilliseconds: Int32 = 155
    static let connectTimeoutMilliseconds: Int32 = 156
    static let closeSocketFunction: Int32 = 20_208
    static let closeSocketData: Int32 = 10_209
    static let transferInfoData: Int32 = 10_057
    static let transferInfoFunction: Int32 = 20_219
    static let uploadBufferSize: Int32 = 280
    /// `CURLOPT_PROTOCOLS` and `CURLOPT_REDIR_PROTOCOLS`: the bitmask form before 7.85.
    static let protocols: Int32 = 181
    static let redirectProtocols: Int32 = 182
    static let protocolsString: Int32 = 10_318
    static let redirectProtocolsString: Int32 = 10_319
    static let unixSocketPath: Int32 = 10_231
    static let httpVersion: Int32 = 84
    static let pipeWait: Int32 = 237
    static let forbidReuse: Int32 = 75
    /// `CURLOPT_VERBOSE`, `CURLOPT_DEBUGFUNCTION` and `CURLOPT_DEBUGDATA`: the debug callback
    /// sees the raw bytes received (`CurlDebug.dataIn`).
    static let verbose: Int32 = 41
    static let debugFunction: Int32 = 20_094
    static let debugData: Int32 = 10_095
    static let proxy: Int32 = 10_004
    static let proxyUsername: Int32 = 10_175
    static let proxyPassword: Int32 = 10_176
    static let suppressConnectHeaders: Int32 = 265
    static let proxyCAInfoBlob: Int32 = 40_310
    /// `CURLOPT_PROXY_CAPATH` (7.52.0): the CA directory for an HTTPS proxy.
    static let proxyCAPath: Int32 = 10_247
    static let sslCertificateBlob: Int32 = 40_291
    static let sslKeyBlob: Int32 = 40_292
}

/// `CURLINFO` values (CURLINFO_OFF_T is 0x600000).
enum CurlInfo {
    /// CURLINFO_SIZE_DOWNLOAD_T: body bytes received so far, before content decoding.
    static let sizeDownload: Int32 = 0x600000 + 8
    /// CURLINFO_HTTP_CONNECTCODE (CURLINFO_LONG is 0x200000): the status a proxy answered a
    /// `CONNECT` with.
    static let connectCode: Int32 = 0x200000 + 22
}

enum CurlMultiOption {
    static let socketFunction: Int32 = 20_001
    static let socketData: Int32 = 10_002
    static let timerFunction: Int32 = 20_004
    static let timerData: Int32 = 10_005
    static let pipelining: Int32 = 3
    static let maxHostConnections: Int32 = 7
}

/// The results the transport returns from its own callbacks (`CurlError` maps the rest).
enum CurlCode {
    static let ok: Int32 = 0
    /// CURLE_WRITE_ERROR: a write callback refused the bytes (the transfer stopped a response).
    static let writeError: Int32 = 23
    static let outOfMemory: Int32 = 27
    /// CURLE_TOO_LARGE (libcurl 8): a header line over libcurl's limit, as `outOfMemory` in 7.x.
    static let tooLarge: Int32 = 100
    static let operationTimedOut: Int32 = 28
    static let sslConnectError: Int32 = 35
}

enum CurlSocket {
    static let timeout: Int32 = -1
    static let pollIn: Int32 = 1
    static let pollOut: Int32 = 2
    static let pollRemove: Int32 = 4
    static let selectIn: Int32 = 1
    static let selectOut: Int32 = 2
    static let readFunctionAbort = 0x1000_0000
    static let readFunctionPause = 0x1000_0001
    static let writeFunctionPause = 0x1000_0001
}

/// What `CURLOPT_TRAILERFUNCTION` returns.
enum CurlTrailer {
    static let ok: Int32 = 0
    static let abort: Int32 = 1
}

/// `curl_infotype` values of the debug callback.
enum CurlDebug {
    /// `CURLINFO_DATA_IN`: response body bytes as received, before the chunked framing is removed.
    static let dataIn: Int32 = 3
}

enum CurlPause {
    static let resumeAll: Int32 = 0
    static let receive: Int32 = 1
}
