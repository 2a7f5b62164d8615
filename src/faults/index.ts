export {
  ToxiproxyClient,
  type FaultEvent,
  type ProxyConnection,
  type ProxyInfo,
  type Stream,
  type Toxic,
  type ToxicSpec,
} from './toxiproxyClient';
export {
  removeActiveToxics,
  removeAllToxics,
  removeToxic,
  toxicLatency,
  toxicResetPeer,
  toxicTimeout,
  withToxic,
  type ActiveToxic,
  type ProxyTarget,
} from './toxics';
