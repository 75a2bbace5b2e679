// Config files the local stack writes into its state folder. Kept apart so cli.ts reads as the procedure.

export function clickhouseConfig(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/error.log</errorlog><size>100M</size><count>2</count></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>1024</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
`;
}

/**
 * ClickHouse 18.16 defaults max_threads to the physical cores it counts, which is 1 on many VMs with 2
 * vCPUs: a scan of the events page then uses half the machine (free text over 24 h: 320 ms with 1
 * thread, 189 ms with 2 on 10 M events). So the profile names the CPUs Node sees.
 */
export function clickhouseUsers(threads: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>4000000000</max_memory_usage><use_uncompressed_cache>0</use_uncompressed_cache><load_balancing>random</load_balancing><max_threads>${threads}</max_threads></default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

// Kafka's server.properties and the Sentinel group's redis.conf / sentinel.conf come from runtime
// (kafkaNodeProperties, redisNodeConf, sentinelConf): the test kit's own clusters use them too.

export function redisConf(dir: string, port: number): string {
  return [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${dir}/data`,
    'appendonly yes',
    'appendfsync everysec',
    'maxmemory 1gb',
    'maxmemory-policy noeviction',
    'save ""',
    `logfile ${dir}/redis.log`,
    `pidfile ${dir}/redis.pid`,
    'daemonize no',
    '',
  ].join('\n');
}
