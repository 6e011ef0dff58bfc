// The deployment kit as a whole: every YAML file under deploy/ parses (each
// of its documents, with no parser warning), and the config baked into the
// image loads with the exporter's own loader both as shipped (the simulator)
// and with the documented environment for a real account. The Dockerfile,
// compose and Kubernetes checks are in the files beside this one.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { fromRoot, isYaml, readText, repoPath, walk, yamlDocuments } from './files.js';

const YAML_FILES = walk(fromRoot('deploy')).filter(isYaml);

describe('deploy/: every YAML file', () => {
  it('there are the compose and Kubernetes files to check', () => {
    const paths = YAML_FILES.map(repoPath);
    expect(paths).toContain('deploy/compose/docker-compose.yml');
    expect(paths).toContain('deploy/kubernetes/kustomization.yaml');
    expect(paths).toContain('deploy/container/config.yaml');
  });

  it.each(YAML_FILES.map((path) => [repoPath(path), path]))('%s parses, every document, without warnings', (_name, path) => {
    const docs = yamlDocuments(path);
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) expect(doc).toBeTypeOf('object');
    // A tab in indentation is a YAML error some tools accept and others reject.
    expect(readText(path)).not.toMatch(/^\t/m);
  });
});

describe('deploy/container/config.yaml (the image default)', () => {
  const file = fromRoot('deploy/container/config.yaml');
  const text = readText(file);

  it('loads as shipped: the bundled simulator, listening on every interface', () => {
    const config = loadConfig({ file, text, env: {} });
    expect(config.upstream.api_url).toBeUndefined();
    expect(config.simulator.enabled).toBe(true);
    expect(config.server.listen).toBe('0.0.0.0:9810');
    expect(config.state_dir).toBe('/var/lib/edge-exporter');
  });

  it('switches to a real account through EDGE_API_URL and EDGE_API_TOKEN alone', () => {
    const config = loadConfig({
      file,
      text,
      env: { EDGE_API_URL: 'https://api.example.com', EDGE_LOGIN_URL: 'https://console.example.com', EDGE_API_TOKEN: 'tok-123' },
    });
    expect(config.upstream.api_url).toBe('https://api.example.com');
    expect(config.upstream.login_url).toBe('https://console.example.com');
    expect(config.upstream.token).toBe('tok-123');
  });

  it('fails loudly, naming the missing token, when only EDGE_API_URL is set', () => {
    expect(() => loadConfig({ file, text, env: { EDGE_API_URL: 'https://api.example.com' } })).toThrow(/upstream\.token/);
  });
});
