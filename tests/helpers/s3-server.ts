// A real SeaweedFS S3 server per test file (started by scripts/seaweedfs-server.ts, shared with the bench).
export { startS3Server, type S3Server } from '../../scripts/seaweedfs-server';
